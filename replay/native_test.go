package replay_test

import (
	"encoding/json"
	"testing"

	"github.com/evcap/evcap/envelope"
	"github.com/evcap/evcap/fixtures"
	"github.com/evcap/evcap/replay"
)

// TestNativeStreamSynthetic (a synthetic fixture: the corpus has no
// stderr or non-JSON stdout lines) gives the lines as printed: JSON as is,
// non-JSON decoded from its string payload, stderr only on request, gaps
// never, in sequence order.
func TestNativeStreamSynthetic(t *testing.T) {
	ev := func(seq int64, stage envelope.Stage, typ, payload string) fixtures.Event {
		return fixtures.Event{Sequence: seq, Stage: stage, EventType: typ, Payload: json.RawMessage(payload)}
	}
	fx := &fixtures.Fixture{Events: []fixtures.Event{
		ev(5, envelope.StageNativeIn, "result", `{"type":"result"}`),
		ev(1, envelope.StageNativeIn, envelope.EventNonJSON, `"warning: proxy is slow"`),
		ev(2, envelope.StageNativeIn, envelope.EventStderr, `"stderr line"`),
		ev(3, envelope.StageNativeIn, envelope.EventGap, `{"droppedBytes":10}`),
		ev(4, envelope.StageNormalizedOut, "text/delta", `{}`),
	}}
	for _, c := range []struct {
		stderr bool
		want   []string
	}{
		{false, []string{"warning: proxy is slow", `{"type":"result"}`}},
		{true, []string{"warning: proxy is slow", "stderr line", `{"type":"result"}`}},
	} {
		got := replay.NativeStream(fx, c.stderr)
		if len(got) != len(c.want) {
			t.Fatalf("stderr %v: %d lines, want %d: %+v", c.stderr, len(got), len(c.want), got)
		}
		for i, l := range got {
			if string(l.Line) != c.want[i] || l.Index != i || l.Stderr != (l.EventType == envelope.EventStderr) {
				t.Errorf("stderr %v line %d: %+v, want %q", c.stderr, i, l, c.want[i])
			}
		}
	}
	if s := string(replay.StreamBytes(replay.NativeStream(fx, false))); s != "warning: proxy is slow\n{\"type\":\"result\"}\n" {
		t.Errorf("StreamBytes = %q", s)
	}
}
