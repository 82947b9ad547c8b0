//go:build race

package record

import "time"

// arrivalSlack is how far a recorded spacing may stray from the child's.
// The race detector slows every goroutine several times; on a loaded
// machine the pump that stamps a chunk then runs tens of milliseconds
// late, which is the test harness, not the clock.
const arrivalSlack = 60 * time.Millisecond
