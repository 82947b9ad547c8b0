package jsonpick_test

import (
	"testing"

	"github.com/evcap/evcap/internal/corpustest"
	"github.com/evcap/evcap/internal/jsonpick"
)

// TestValidatorLikeValidLongSeeds cuts every seed longer than
// TestValidatorLikeValid's limit, up to 4096 bytes, at every offset once:
// the Validator must agree with Valid wherever a read may end. It is
// heavy under the race detector (28 s there, 1.6 s without), which adds
// nothing to sequential code; .ci/after-heavy.sh runs it.
func TestValidatorLikeValidLongSeeds(t *testing.T) {
	corpustest.Heavy(t)
	n := 0
	for _, line := range jsonpick.ValidatorSeeds(t) {
		if len(line) <= jsonpick.CutOnceMax || len(line) > 4096 {
			continue
		}
		n++
		for c := 0; c <= len(line); c++ {
			jsonpick.CheckValidator(t, line, []int{c})
		}
	}
	if n == 0 {
		t.Fatal("no seed between the limits: the test checks nothing")
	}
	t.Logf("%d seeds cut at every offset", n)
}
