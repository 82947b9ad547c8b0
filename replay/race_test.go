//go:build race

package replay_test

// raceEnabled: the race detector slows replays about tenfold; the largest
// cases run smaller under it.
const raceEnabled = true
