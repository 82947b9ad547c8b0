//go:build !race

package jsonwalk

const raceEnabled = false
