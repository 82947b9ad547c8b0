//go:build race

package export_test

// raceEnabled: the race detector multiplies memory use, so the fleet
// memory bound is checked only without it (.ci/after-export.sh).
const raceEnabled = true
