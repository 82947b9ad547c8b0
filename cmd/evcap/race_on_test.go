//go:build race

package main

// raceEnabled: the race detector multiplies memory use several times over,
// so memory bounds meant for evcap itself are not checked under it.
const raceEnabled = true
