package replay_test

import (
	"encoding/json"
	"os"
	"testing"
	"time"

	"github.com/evcap/evcap/envelope"
	"github.com/evcap/evcap/fixtures"
	"github.com/evcap/evcap/internal/corpustest"
	"github.com/evcap/evcap/replay"
	"github.com/google/go-cmp/cmp"
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

// TestCaptureTimesOfASanitizedCapture: a sanitized capture's offsets
// ("+0.203s") give each native line its time since the first one, as a
// recorded capture's wall times do.
func TestCaptureTimesOfASanitizedCapture(t *testing.T) {
	const path = "../export/testdata/claude-subagent.capture.jsonl"
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	got, err := replay.CaptureTimes(f, path)
	if err != nil {
		t.Fatal(err)
	}
	want := map[int64]time.Duration{}
	var first time.Time
	for _, rec := range corpustest.Records(t, path) {
		if rec.Stage != envelope.StageNativeIn {
			continue
		}
		at, offset, err := envelope.ParseTimestamp(rec.Timestamp)
		if err != nil || !offset {
			t.Fatalf("sequence %d: %q is not an offset (%v)", rec.Sequence, rec.Timestamp, err)
		}
		if first.IsZero() {
			first = at
		}
		want[rec.Sequence] = at.Sub(first)
	}
	var last time.Duration
	for _, d := range want {
		last = max(last, d)
	}
	if len(want) < 5 || last < 100*time.Millisecond {
		t.Fatalf("%d native lines over %v: want a capture with timing", len(want), last)
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("times (-offsets +CaptureTimes):\n%s", d)
	}
}
