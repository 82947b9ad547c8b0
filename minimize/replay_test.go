package minimize

import (
	"bytes"
	"context"
	"os"
	"testing"

	"github.com/evcap/evcap/envelope"
	"github.com/evcap/evcap/fixtures"
	"github.com/evcap/evcap/normalize/claude"
	"github.com/evcap/evcap/replay"
)

const longText = "../fixtures/testdata/claude/long-text-partial"

func loadFixture(t *testing.T, dir string) *fixtures.Fixture {
	t.Helper()
	fx, err := fixtures.Load(os.DirFS(dir), ".")
	if err != nil {
		t.Fatal(err)
	}
	return fx
}

// TestReplayFailsPlantedDefect takes the 620-line Claude long-text capture,
// plants one defect in its recorded normalized_out (one delta's text
// doubled, as a buggy integration would have recorded it) and checks that
// minimization keeps fewer than 20 events and still points at that delta.
func TestReplayFailsPlantedDefect(t *testing.T) {
	fx := loadFixture(t, longText)
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
	fails, m, err := ReplayFails(fx, opts)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Fixture(context.Background(), fx, fails)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%+v -> %+v in %d tests", res.Before, res.After, res.Stats.Tests)
	if res.After.Events >= 20 {
		t.Errorf("minimized to %d events, want fewer than 20", res.After.Events)
	}
	if res.Before != CountsOf(fx) || res.After != CountsOf(res.Fixture) {
		t.Errorf("counts %+v -> %+v do not match the fixtures", res.Before, res.After)
	}
	if ok, _ := fails(context.Background(), res.Fixture); !ok {
		t.Error("the minimized fixture no longer fails")
	}
	if n := len(m.Native); n == 0 || m.Native[n-1].Sequence != planted {
		t.Errorf("the original mismatch points at %+v, want native line %d", m.Native, planted)
	}
}

func TestReplayFailsNothingToDo(t *testing.T) {
	fx := loadFixture(t, "../fixtures/testdata/claude/tools")
	_, _, err := ReplayFails(fx, replay.Options{Mode: replay.ModeNative, Normalizer: func() replay.Normalizer { return claude.New() }})
	if err != ErrNoFailure {
		t.Errorf("ReplayFails on a fixture that replays cleanly: %v, want ErrNoFailure", err)
	}
}
