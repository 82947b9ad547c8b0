//go:build race

package redact

// raceEnabled: the race detector slows the randomised equivalence tests
// of pure functions several times over; they draw fewer cases under it
// (raceScaled).
const raceEnabled = true
