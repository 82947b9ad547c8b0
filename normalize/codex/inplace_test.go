package codex_test

import (
	"testing"

	"github.com/evcap/evcap/event"
	"github.com/evcap/evcap/normalize/codex"
)

// TestLineValidKeepsNoLineBytes feeds a turn whose agent message codex
// marked as the final answer through LineValid, each line in a buffer
// overwritten after the call (synthetic lines in the shape of the
// corpus' codex exec --json runs, with the phase member of newer codex):
// the result's text, assembled at turn.completed, is the message's, and
// the message event's phase survives, so the normalizer copied what it
// kept instead of keeping the line.
func TestLineValidKeepsNoLineBytes(t *testing.T) {
	n := codex.New()
	lines := []string{
		`{"type":"thread.started","thread_id":"t-1"}`,
		`{"type":"turn.started"}`,
		`{"type":"item.completed","item":{"id":"item_0","type":"agent_message","text":"The answer.","phase":"final_answer"}}`,
		`{"type":"turn.completed","usage":{"input_tokens":1,"cached_input_tokens":0,"output_tokens":2}}`,
	}
	var buf []byte
	var result string
	var phase event.MessagePhase
	for i, l := range lines {
		buf = append(buf[:0], l...)
		evs := n.LineValid(int64(i+1), buf)
		for j := range buf {
			buf[j] = '#'
		}
		for _, ev := range evs {
			if ev.Result != nil {
				result = ev.Result.Text
			}
			if ev.Kind == event.KindText {
				phase = ev.MessagePhase
			}
		}
	}
	if result != "The answer." || phase != event.MessagePhaseFinalAnswer {
		t.Fatalf("result text %q, message phase %q; want %q, %q", result, phase, "The answer.", event.MessagePhaseFinalAnswer)
	}
}
