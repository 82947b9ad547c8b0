//go:build race

package jsonwalk

// raceEnabled: the race detector slows the byte loops of the long-string
// tests several times over; they draw fewer cases under it.
const raceEnabled = true
