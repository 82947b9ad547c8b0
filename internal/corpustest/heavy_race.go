//go:build race

package corpustest

// raceEnabled is true when the test binary is built with -race.
const raceEnabled = true
