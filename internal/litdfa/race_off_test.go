//go:build !race

package litdfa

const raceOn = false
