package replaytest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"testing"

	"github.com/evcap/evcap/capture"
	"github.com/evcap/evcap/envelope"
	"github.com/evcap/evcap/fixtures"
	"github.com/evcap/evcap/replay"
)

// TapsFunc is the user's own code under test, wired as in production: it
// reads the agent CLI's stdout from native and reports what its event
// handler and UI layer receive through the capturer's taps
// (c.Handler, c.Render, capture.WrapHandler).
type TapsFunc func(native io.Reader, c *capture.Capturer) error

// CheckTaps re-drives fn from the fixture in dir and compares the
// handler_in and render_in records it taps with the ones recorded in the
// fixture (a capture made with the same taps and promoted): the same
// records, stage by stage, kind (eventType) and JSON value, in order. It
// returns nil when they match, else an error naming the first record that
// differs (stage, index, kind, the recorded and the new value). A fixture
// without such records is an error: there is nothing to compare.
func CheckTaps(ctx context.Context, dir string, fn TapsFunc) error {
	fx, err := fixtures.Load(os.DirFS(dir), ".")
	if err != nil {
		return err
	}
	want := tapEvents(fx.Events)
	if len(want) == 0 {
		return fmt.Errorf("%s: %w: the fixture holds no handler_in or render_in records to compare", dir, replay.ErrBadInput)
	}
	native := replay.StreamBytes(replay.NativeStream(fx, false))
	var buf bytes.Buffer
	c := capture.New(envelope.NewWriter(&buf, envelope.WriterOptions{CaptureID: "replaytest", FlushInterval: -1}), capture.Options{Provider: fx.Provider})
	if err := ctx.Err(); err != nil {
		return err
	}
	runErr := fn(bytes.NewReader(native), c)
	if err := c.Close(capture.End{}); err != nil {
		return fmt.Errorf("%s: the taps: %w", dir, err)
	}
	var got []fixtures.Event
	rd := envelope.NewReader(&buf, "taps", envelope.ReaderOptions{})
	for {
		rec, err := rd.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return fmt.Errorf("%s: reading the taps back: %w", dir, err)
		}
		got = append(got, fixtures.FromRecord(rec))
	}
	if d := diffTaps(want, tapEvents(got)); d != "" {
		if runErr != nil {
			d += fmt.Sprintf(" (the code under test returned: %v)", runErr)
		}
		return fmt.Errorf("%s: %s", dir, d)
	}
	if runErr != nil {
		return fmt.Errorf("%s: the taps match, but the code under test returned: %w", dir, runErr)
	}
	return nil
}

// Taps is CheckTaps for a test: a difference fails t.
func Taps(t testing.TB, dir string, fn TapsFunc) {
	t.Helper()
	if err := CheckTaps(context.Background(), dir, fn); err != nil {
		t.Error(err)
	}
}

func tapEvents(evs []fixtures.Event) map[envelope.Stage][]fixtures.Event {
	out := map[envelope.Stage][]fixtures.Event{}
	for _, e := range evs {
		if e.Stage == envelope.StageHandlerIn || e.Stage == envelope.StageRenderIn {
			out[e.Stage] = append(out[e.Stage], e)
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// diffTaps names the first tapped record that differs, stage by stage.
func diffTaps(want, got map[envelope.Stage][]fixtures.Event) string {
	for _, st := range []envelope.Stage{envelope.StageHandlerIn, envelope.StageRenderIn} {
		w, g := want[st], got[st]
		for i := 0; i < len(w) || i < len(g); i++ {
			switch {
			case i >= len(g):
				return fmt.Sprintf("%s record %d (%s, recorded at sequence %d) was not tapped: the code stopped after %d", st, i+1, w[i].EventType, w[i].Sequence, len(g))
			case i >= len(w):
				return fmt.Sprintf("%s record %d (%s) is new: the fixture recorded %d", st, i+1, g[i].EventType, len(w))
			case w[i].EventType != g[i].EventType || !sameJSON(w[i].Payload, g[i].Payload):
				return fmt.Sprintf("%s record %d differs (recorded at sequence %d):\n  recorded %s %s\n  now      %s %s", st, i+1, w[i].Sequence, w[i].EventType, w[i].Payload, g[i].EventType, g[i].Payload)
			}
		}
	}
	return ""
}

func sameJSON(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return bytes.Equal(a, b)
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return bytes.Equal(xa, ya)
}
