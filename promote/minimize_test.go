package promote

import (
	"bytes"
	"os"
	"testing"

	"github.com/evcap/evcap/envelope"
	"github.com/evcap/evcap/fixtures"
	"github.com/evcap/evcap/normalize/claude"
	"github.com/evcap/evcap/replay"
)

// TestMinimizePlantedDefect takes the 620-line Claude long-text capture,
// plants one defect in its recorded normalized_out (one delta's text
// doubled, as a buggy integration would have recorded it) and checks that
// minimization keeps fewer than 20 events and still points at that delta.
func TestMinimizePlantedDefect(t *testing.T) {
	fx, err := fixtures.Load(os.DirFS("../fixtures/testdata/claude/long-text-partial"), ".")
	if err != nil {
		t.Fatal(err)
	}
	if n := len(fx.Stage(envelope.StageNativeIn)); n < 600 {
		t.Fatalf("the capture has %d native lines, want at least 600", n)
	}
	planted := int64(0)
	deltas := 0
	for i, e := range fx.Events {
		if e.Stage == envelope.StageNormalizedOut && bytes.Contains(e.Payload, []byte(`"phase":"delta"`)) {
			if deltas++; deltas == 200 {
				e.Payload = bytes.Replace(e.Payload, []byte(`"text":"`), []byte(`"text":"XX`), 1)
				fx.Events[i] = e
				planted = e.Cause[0]
			}
		}
	}
	if planted == 0 {
		t.Fatal("found no 200th delta to plant the defect in")
	}
	opts := replay.Options{Mode: replay.ModeNative, Normalizer: func() replay.Normalizer { return claude.New() }}
	fails, m, err := FailsLike(fx, opts)
	if err != nil {
		t.Fatal(err)
	}
	small, removed, err := Minimize(fx, fails)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("removed %d of %d events; %d left", removed, len(fx.Events), len(small.Events))
	if len(small.Events) >= 20 {
		t.Errorf("minimized to %d events, want fewer than 20", len(small.Events))
	}
	if removed != len(fx.Events)-len(small.Events) {
		t.Errorf("removed = %d, but %d - %d events", removed, len(fx.Events), len(small.Events))
	}
	if !fails(small) {
		t.Error("the minimized fixture no longer fails")
	}
	if n := len(m.Native); n == 0 || m.Native[n-1].Sequence != planted {
		t.Errorf("the original mismatch points at %+v, want native line %d", m.Native, planted)
	}
}

func TestMinimizeNothingToDo(t *testing.T) {
	fx, err := fixtures.Load(os.DirFS("../fixtures/testdata/claude/tools"), ".")
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = FailsLike(fx, replay.Options{Mode: replay.ModeNative, Normalizer: func() replay.Normalizer { return claude.New() }})
	if err != ErrNoFailure {
		t.Errorf("FailsLike on a fixture that replays cleanly: %v, want ErrNoFailure", err)
	}
}
