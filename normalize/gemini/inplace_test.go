package gemini_test

import (
	"testing"

	"github.com/evcap/evcap/normalize/gemini"
)

// TestLineValidKeepsNoLineBytes feeds a whole (not delta) assistant
// message and then the result through LineValid, each line in a buffer
// that is overwritten after the call (synthetic lines in the shape of the
// corpus' error-retry run): the result's text is the message's, so the
// normalizer copied what it kept instead of keeping the line.
func TestLineValidKeepsNoLineBytes(t *testing.T) {
	n := gemini.New()
	lines := []string{
		`{"type":"init","timestamp":"2026-11-29T19:32:10.000Z","session_id":"s-1","model":"gemini-2.5-pro"}`,
		`{"type":"message","timestamp":"2026-11-29T19:32:28.258Z","role":"assistant","content":"Hello whole","delta":false}`,
		`{"type":"result","timestamp":"2026-11-29T19:32:28.282Z","status":"success","stats":{"input_tokens":1,"output_tokens":2,"duration_ms":3}}`,
	}
	var buf []byte
	var last string
	var session string
	for i, l := range lines {
		buf = append(buf[:0], l...)
		evs := n.LineValid(int64(i+1), buf)
		for j := range buf {
			buf[j] = '#'
		}
		for _, ev := range evs {
			if ev.Result != nil {
				last = ev.Result.Text
			}
			session = ev.SessionID
		}
	}
	if last != "Hello whole" || session != "s-1" {
		t.Fatalf("result text %q, session %q; want %q, %q", last, session, "Hello whole", "s-1")
	}
}
