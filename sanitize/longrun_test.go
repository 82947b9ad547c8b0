package sanitize_test

import (
	"bytes"
	"encoding/base64"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/evcap/evcap/redact"
	"github.com/evcap/evcap/sanitize"
	"github.com/tidwall/gjson"
)

// longRunLines is the real long-text-partial run with a base64 run of n
// text deltas (40 characters each) streamed into its answer, after its
// first delta, in lines shaped like that delta's; pieces are the run's
// deltas.
func longRunLines(t *testing.T, n int) (lines [][]byte, pieces []string) {
	t.Helper()
	var src [][]byte
	each(t, corpusDir+"/claude/long-text-partial.stdout.jsonl", func(l []byte) { src = append(src, append([]byte(nil), l...)) })
	first := -1
	for i, l := range src {
		if gjson.GetBytes(l, "event.delta.type").String() == "text_delta" {
			first = i
			break
		}
	}
	if first < 0 {
		t.Fatal("no text delta in the run")
	}
	text := gjson.GetBytes(src[first], "event.delta.text").Raw // "Here is"
	rng := rand.New(rand.NewPCG(uint64(n), 9))
	lines = append(lines, src[:first+1]...)
	for i := range n {
		b := make([]byte, 30)
		for j := range b {
			b[j] = byte(rng.IntN(256))
		}
		p := base64.StdEncoding.EncodeToString(b)
		if i == 0 {
			p = " " + p
		}
		pieces = append(pieces, p)
		lines = append(lines, bytes.Replace(src[first], []byte(`"text":`+text), []byte(`"text":"`+p+`"`), 1))
	}
	return append(lines, src[first+1:]...), pieces
}

// TestLongBase64RunInDeltas: a base64 run streamed in text deltas is
// never released as it is, by record's line redactor (one delta at a
// time, as a live agent's lines come, and in batches) and by sanitize:
// a run of 1024 bytes or more becomes one [BINARY] token, as in the
// whole text, also when MaxHeld ends the block early (the held run is
// replaced then). Before, every stream let the run's head out once it
// passed 256 bytes, and looked at all of it again for each delta (a
// 240 KB run took 15 s).
func TestLongBase64RunInDeltas(t *testing.T) {
	for _, n := range []int{40, 800} {
		in, pieces := longRunLines(t, n)
		for _, opts := range []sanitize.LineOptions{{}, {Batch: 4096}, {MaxHeld: 16 << 10}} {
			r, err := redact.New(redact.Options{})
			if err != nil {
				t.Fatal(err)
			}
			var answer strings.Builder
			for _, l := range streamLines(t, sanitize.NewLineRedactor(r, opts), in) {
				if gjson.GetBytes(l.Line, "event.delta.type").String() == "text_delta" {
					answer.WriteString(gjson.GetBytes(l.Line, "event.delta.text").String())
				}
			}
			got := answer.String()
			for _, p := range pieces {
				if strings.Contains(got, strings.TrimSpace(p)) {
					t.Fatalf("n=%d %+v: a piece of the run is in the answer as it was: %q", n, opts, p)
				}
			}
			if opts.MaxHeld == 0 && !strings.Contains(got, "[BINARY:") {
				t.Errorf("n=%d %+v: no [BINARY] token in %.200q", n, opts, got)
			}
		}
	}
}
