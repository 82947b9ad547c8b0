//go:build race

package litdfa

// raceOn: the tests run under the race detector, which makes the
// random and differential tests ten times slower; they take smaller
// samples (the full ones run without it).
const raceOn = true
