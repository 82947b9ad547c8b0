package legacy_test

import (
	"strings"
	"testing"

	"github.com/evcap/evcap/event"
	"github.com/evcap/evcap/render/legacy"
)

// TestReadDeltaReadsWhatDeriveWrites: every delta marker the deriver
// writes reads back as its marker and the very piece of text it was given
// (quotes, escapes, HTML characters, control bytes, non-ASCII), the
// markers that end a run of deltas are the message and stream boundaries
// (and no others), and lines that are not delta markers are not read as
// ones.
func TestReadDeltaReadsWhatDeriveWrites(t *testing.T) {
	pieces := []string{"plain", ` "quoted" \ back\slash`, "<b>&amp;</b>", "tab\tnl\nnul\x00", "ünï €", " ", "\u2028"}
	var evs []event.Event
	var want []string
	for i, p := range pieces {
		kind := event.KindText
		if i%3 == 2 {
			kind = event.KindThinking
		}
		msg := "m1"
		if i >= 4 {
			msg = "m2" // a second message: [MESSAGE_END] and [MESSAGE_START] between
		}
		evs = append(evs, event.Event{Kind: kind, Phase: event.PhaseDelta, MessageID: msg, Text: p})
		want = append(want, p)
	}
	evs = append(evs,
		event.Event{Kind: event.KindToolResult, ToolCallID: "t1", ToolResult: &event.ToolResult{Output: "[CONTENT_DELTA] \"not one\""}},
		event.Event{Kind: event.KindResult, Phase: event.PhaseCompleted, Result: &event.Result{Subtype: "success"}})
	var got []string
	ends := map[string]bool{}
	for _, m := range legacy.Derive(evs) {
		marker, text, ok := legacy.ReadDelta(m.Line)
		if ok {
			if wantMarker := legacy.ContentDelta; strings.HasPrefix(m.Line, legacy.ThinkingDelta) {
				wantMarker = legacy.ThinkingDelta
				if marker != wantMarker {
					t.Errorf("%q: marker %q", m.Line, marker)
				}
			} else if marker != wantMarker {
				t.Errorf("%q: marker %q", m.Line, marker)
			}
			got = append(got, text)
		}
		name, _, _ := strings.Cut(m.Line, " ")
		if legacy.EndsBlocks(m.Line) != legacy.EndsBlocks(name) {
			t.Errorf("EndsBlocks(%q) differs from its bare marker's", m.Line)
		}
		if legacy.EndsBlocks(m.Line) {
			ends[name] = true
		}
	}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("pieces read back %q, want %q", got, want)
	}
	for _, m := range []string{"[MESSAGE_START]", "[MESSAGE_END]", "[STREAM_END]"} {
		if !ends[m] {
			t.Errorf("%s does not end the runs of deltas (ends: %v)", m, ends)
		}
	}
	if len(ends) != 3 {
		t.Errorf("markers that end runs: %v, want only the message and stream boundaries", ends)
	}
	for _, line := range []string{`[CONTENT_DELTA]`, `[CONTENT_DELTA] 42`, `[CONTENT_DELTA] "torn`, `[CONTENT_DELTA] "a" "b"`, `[TOOL_USE] "x"`, `[CONTENT_DELTA]"x"`} {
		if _, _, ok := legacy.ReadDelta(line); ok {
			t.Errorf("ReadDelta(%q) read a delta", line)
		}
	}
}
