package sanitize_test

import (
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/evcap/evcap/redact"
	"github.com/evcap/evcap/sanitize"
)

// TestLineRedactorLiveSplitSecret: a fake key split across 2 to 4 deltas,
// in the delta shapes of the providers that stream text, is gone from every
// released line, and the prose before it is released by its own Push
// (the live render does not wait for the block to end).
func TestLineRedactorLiveSplitSecret(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 3))
	const set = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	body := make([]byte, 93)
	for i := range body {
		body[i] = set[rng.IntN(len(set))]
	}
	key := "sk-" + "ant-api03-" + string(body) + "AA"
	str := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	shapes := []struct {
		provider string
		start    string
		delta    func(string) string
	}{
		{"claude", `{"type":"stream_event","event":{"type":"message_start","message":{"id":"msg_1"}},"session_id":"s","parent_tool_use_id":null}`,
			func(d string) string {
				return `{"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":` + str(d) + `}},"session_id":"s","parent_tool_use_id":null}`
			}},
		{"claude-input-json", `{"type":"stream_event","event":{"type":"message_start","message":{"id":"msg_1"}},"session_id":"s","parent_tool_use_id":null}`,
			func(d string) string {
				return `{"type":"stream_event","event":{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":` + str(d) + `}},"session_id":"s","parent_tool_use_id":null}`
			}},
		{"gemini", `{"type":"init","session_id":"s"}`,
			func(d string) string {
				return `{"type":"message","role":"assistant","content":` + str(d) + `,"delta":true}`
			}},
		{"opencode", `{"type":"session.status","properties":{"sessionID":"ses_1","status":{"type":"busy"}}}`,
			func(d string) string {
				return `{"type":"message.part.delta","properties":{"sessionID":"ses_1","messageID":"msg_1","partID":"prt_1","field":"text","delta":` + str(d) + `}}`
			}},
	}
	r, err := redact.New(redact.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, sh := range shapes {
		for n := 2; n <= 4; n++ {
			text := "Here is the plan. The key is " + key + " and more prose follows here."
			ks := strings.Index(text, key)
			cuts := []int{15, ks + 1 + rng.IntN(len(key)-2)}
			for len(cuts) < n+1 {
				c := ks + 1 + rng.IntN(len(key)-2)
				if c > cuts[len(cuts)-1] {
					cuts = append(cuts, c)
				}
			}
			cuts = append(cuts, len(text))
			deltas := []string{text[:cuts[0]]}
			for i := 0; i+1 < len(cuts); i++ {
				deltas = append(deltas, text[cuts[i]:cuts[i+1]])
			}
			lr := sanitize.NewLineRedactor(r, sanitize.LineOptions{})
			var out []string
			lr.Push([]byte(sh.start))
			first := lr.Push([]byte(sh.delta(deltas[0])))
			if len(first) == 0 {
				t.Errorf("%s/%d: the prose before the key waited (%q)", sh.provider, n, deltas[0])
			}
			for _, g := range first {
				out = append(out, string(g.Line))
			}
			for _, d := range deltas[1:] {
				for _, g := range lr.Push([]byte(sh.delta(d))) {
					out = append(out, string(g.Line))
				}
			}
			for _, g := range lr.Flush() {
				out = append(out, string(g.Line))
			}
			all := strings.Join(out, "\n")
			for i := 13; i+6 <= len(key); i++ {
				if strings.Contains(all, key[i:i+6]) {
					t.Fatalf("%s split in %d: piece %q survived:\n%s", sh.provider, n, key[i:i+6], all)
				}
			}
			// The token may be spread over the deltas the key covered (so
			// that none is emptied), hence only its start is looked for.
			if !strings.Contains(all, "[REDACTED:") || !strings.Contains(all, "prose follows") {
				t.Errorf("%s split in %d: token or trailing text missing:\n%s", sh.provider, n, all)
			}
		}
	}
}
