package codex

import (
	"strings"
	"testing"

	"github.com/evcap/evcap/event"
	"github.com/evcap/evcap/internal/textcut"
)

// TestLineOver16MiB feeds a command output of 17 MiB in 1 MiB chunks: it
// must arrive as one call and one result, cut for display but with its
// full size.
func TestLineOver16MiB(t *testing.T) {
	const size = 17 << 20
	line := `{"type":"item.completed","item":{"id":"item_9","type":"command_execution","command":"/bin/bash -lc 'cat big'","aggregated_output":"` +
		strings.Repeat("x", size) + `","exit_code":0,"status":"completed"}}` + "\n"
	var evs []event.Event
	c := NewConverter(func(e event.Event) { evs = append(evs, e) })
	for i := 0; i < len(line); i += 1 << 20 {
		c.Write([]byte(line[i:min(i+1<<20, len(line))]))
	}
	c.Close()
	if len(evs) != 3 || evs[0].Kind != event.KindTool || evs[1].Kind != event.KindToolResult {
		t.Fatalf("got %d events, want tool, tool_result and the incomplete result: %+v", len(evs), evs)
	}
	r := evs[1].ToolResult
	if r.OutputBytes != size || len(r.Output) != textcut.OutputBytes {
		t.Errorf("outputBytes %d (want %d), output cut to %d (want %d)", r.OutputBytes, size, len(r.Output), textcut.OutputBytes)
	}
}
