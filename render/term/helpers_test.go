package term

import (
	"fmt"
	"strings"
	"testing"

	"github.com/evcap/evcap/event"
)

// visible makes control characters readable for goldens and failure
// messages: ESC becomes the text `\x1b`, other controls `\xNN`; newline and
// tab stay as they are. (A literal backslash-x in the text is not escaped:
// goldens are for reading; other tests assert that no raw control bytes are
// written.)
func visible(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\n' || r == '\t':
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f):
			fmt.Fprintf(&b, `\x%02x`, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// render feeds events to a new Renderer and returns everything it wrote.
func render(t testing.TB, opts Options, evs ...event.Event) string {
	t.Helper()
	var b strings.Builder
	r := New(&b, opts)
	for _, e := range evs {
		if err := r.Render(e); err != nil {
			t.Fatalf("Render(%+v): %v", e, err)
		}
	}
	if err := r.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	return b.String()
}

func delta(kind event.Kind, msg, part, text string) event.Event {
	return event.Event{Kind: kind, Phase: event.PhaseDelta, MessageID: msg, PartID: part, Text: text}
}

func done(kind event.Kind, msg, part, text string) event.Event {
	return event.Event{Kind: kind, Phase: event.PhaseCompleted, MessageID: msg, PartID: part, Text: text}
}

func toolEv(id, name, summary string) event.Event {
	return event.Event{Kind: event.KindTool, Phase: event.PhaseCompleted, ToolCallID: id,
		Tool: &event.Tool{Name: name, Summary: summary, Input: []byte(`{"secret":"never shown"}`)}}
}
