//go:build !race

package scan

const raceOn = false
