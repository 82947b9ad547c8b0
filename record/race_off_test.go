//go:build !race

package record

import "time"

// arrivalSlack is how far a recorded spacing may stray from the child's
// (the done-means figure of issue 14: 100 ± 10 ms).
const arrivalSlack = 10 * time.Millisecond
