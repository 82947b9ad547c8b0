//go:build !race

package corpustest

const raceEnabled = false
