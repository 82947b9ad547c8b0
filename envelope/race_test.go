//go:build race

package envelope

// raceEnabled: the race detector slows the byte-by-byte differential
// reads about tenfold; the largest inputs are read without it.
const raceEnabled = true
