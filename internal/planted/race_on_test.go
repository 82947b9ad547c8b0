//go:build race

package planted_test

const raceEnabled = true
