//go:build !race

package sanitize

// raceEnabled: the race detector is on, so randomised tests draw fewer
// cases (they test sequential code; the detector only slows them).
const raceEnabled = false
