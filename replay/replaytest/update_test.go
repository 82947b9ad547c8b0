package replaytest_test

import (
	"flag"
	"testing"

	"github.com/evcap/evcap/replay/replaytest"
)

// update is this test binary's own -update flag, as a user's would be.
var update = flag.Bool("update", false, "rewrite goldens (replaytest honours it)")

// TestUpdating: the binary's own boolean -update flag and EVCAP_UPDATE
// both switch updates on; neither is needed.
func TestUpdating(t *testing.T) {
	t.Setenv(replaytest.UpdateEnv, "")
	if *update || replaytest.Updating() {
		t.Skip("run with -update: nothing to check")
	}
	if err := flag.Set("update", "true"); err != nil {
		t.Fatal(err)
	}
	on := replaytest.Updating()
	if err := flag.Set("update", "false"); err != nil {
		t.Fatal(err)
	}
	if !on {
		t.Error("a set -update flag of the binary's own is not honoured")
	}
	for v, want := range map[string]bool{"1": true, "true": true, "clean": true, "0": false, "yes": false} {
		t.Setenv(replaytest.UpdateEnv, v)
		if replaytest.Updating() != want {
			t.Errorf("%s=%s: Updating() = %v, want %v", replaytest.UpdateEnv, v, !want, want)
		}
	}
}
