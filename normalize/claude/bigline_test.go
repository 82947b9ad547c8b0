package claude

import (
	"strings"
	"testing"

	"github.com/evcap/evcap/event"
	"github.com/evcap/evcap/internal/textcut"
)

// TestLineOver16MiB feeds a tool result of 17 MiB (tool outputs can be
// that large) in 1 MiB chunks: it must arrive as one event, cut for display
// but with its full size.
func TestLineOver16MiB(t *testing.T) {
	const size = 17 << 20
	line := `{"type":"user","message":{"role":"user","content":[{"tool_use_id":"toolu_big","type":"tool_result","content":"` +
		strings.Repeat("x", size) + `","is_error":false}]}}` + "\n"
	var evs []event.Event
	c := NewConverter(func(e event.Event) { evs = append(evs, e) })
	for i := 0; i < len(line); i += 1 << 20 {
		c.Write([]byte(line[i:min(i+1<<20, len(line))]))
	}
	c.Close()
	if len(evs) != 2 || evs[0].Kind != event.KindToolResult {
		t.Fatalf("got %d events, want a tool_result and the incomplete result: %+v", len(evs), evs)
	}
	r := evs[0].ToolResult
	if r.OutputBytes != size || len(r.Output) != textcut.OutputBytes {
		t.Errorf("outputBytes %d (want %d), output cut to %d (want %d)", r.OutputBytes, size, len(r.Output), textcut.OutputBytes)
	}
}
