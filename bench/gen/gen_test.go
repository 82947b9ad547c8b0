package gen_test

import (
	"bytes"
	"io"
	"regexp"
	"strings"
	"testing"

	"github.com/evcap/evcap/bench/gen"
	"github.com/evcap/evcap/event"
	"github.com/evcap/evcap/internal/corpustest"
	"github.com/evcap/evcap/internal/lines"
	"github.com/tidwall/gjson"
)

// TestDeterministic: the same options give the same bytes, another seed
// other bytes.
func TestDeterministic(t *testing.T) {
	for _, p := range gen.Providers() {
		o := gen.Options{Provider: p, Size: 200 << 10, Seed: 1, SecretEvery: 2}
		var a, b, c bytes.Buffer
		if _, err := gen.Write(&a, o); err != nil {
			t.Fatal(err)
		}
		gen.Write(&b, o)
		o.Seed = 2
		gen.Write(&c, o)
		if !bytes.Equal(a.Bytes(), b.Bytes()) {
			t.Errorf("%s: two runs with seed 1 differ", p)
		}
		if bytes.Equal(a.Bytes(), c.Bytes()) {
			t.Errorf("%s: seeds 1 and 2 give the same bytes", p)
		}
	}
}

// TestShape: every line is one JSON object with a type, the size is
// reached, the big line is there and the stats add up.
func TestShape(t *testing.T) {
	for _, p := range gen.Providers() {
		var buf bytes.Buffer
		st, err := gen.Write(&buf, gen.Options{Provider: p, Size: 3 << 20, Seed: 5, BigLine: 1 << 20, SecretEvery: 3})
		if err != nil {
			t.Fatal(err)
		}
		if st.Bytes != int64(buf.Len()) || st.Bytes < 3<<20 {
			t.Errorf("%s: stats say %d bytes, wrote %d, asked for at least %d", p, st.Bytes, buf.Len(), 3<<20)
		}
		if st.Longest < 1<<20-4096 || st.Longest > 1<<20+64<<10 {
			t.Errorf("%s: longest line %d bytes, want about %d", p, st.Longest, 1<<20)
		}
		lr := lines.NewReader(&buf)
		var n int64
		for {
			line, err := lr.Next()
			if err != nil {
				break
			}
			n++
			if !gjson.ValidBytes(line) || gjson.GetBytes(line, "type").String() == "" {
				t.Fatalf("%s line %d is not a typed JSON object: %.200s", p, n, line)
			}
		}
		if n != st.Lines {
			t.Errorf("%s: %d lines, stats say %d", p, n, st.Lines)
		}
		if len(st.Planted) == 0 || len(st.Negatives) == 0 {
			t.Errorf("%s: nothing planted", p)
		}
	}
}

// TestTexts: each kind of streamed text says what its doc promises, in
// every provider's run, and an unknown kind is refused.
func TestTexts(t *testing.T) {
	b64Run := regexp.MustCompile(`[A-Za-z0-9+/]{1000,}`)
	for _, p := range gen.Providers() {
		for _, text := range gen.Texts() {
			var buf bytes.Buffer
			if _, err := gen.Write(&buf, gen.Options{Provider: p, Size: 256 << 10, Seed: 4, Text: text}); err != nil {
				t.Fatalf("%s %s: %v", p, text, err)
			}
			// A run is streamed in deltas of a few bytes: join them.
			joined := joinedDeltas(t, p, buf.Bytes())
			switch text {
			case "base64":
				if !b64Run.MatchString(joined) {
					t.Errorf("%s %s: no base64 run of 1000 characters in the streamed text", p, text)
				}
			case "keywords":
				for _, w := range []string{"Bearer", "AKIA", "-----BEGIN", "key="} {
					if !strings.Contains(joined, w) {
						t.Errorf("%s %s: %q never said", p, text, w)
					}
				}
			case "prose":
				if b64Run.MatchString(joined) || strings.Contains(joined, "Bearer") {
					t.Errorf("%s %s: prose holds another kind's text", p, text)
				}
			}
		}
	}
	if _, err := gen.Write(io.Discard, gen.Options{Provider: "claude", Size: 1, Text: "poetry"}); err == nil {
		t.Error("an unknown text kind was accepted")
	}
}

// joinedDeltas is the text of the run's answer and thinking as the
// provider's normalizer reads it: its events' text, joined (opencode's
// run output has whole parts, no deltas).
func joinedDeltas(t *testing.T, p string, run []byte) string {
	t.Helper()
	n := corpustest.NewNormalizer(t, p)
	var b strings.Builder
	add := func(evs []event.Event) {
		for _, e := range evs {
			b.WriteString(e.Text)
			b.WriteByte('\n')
		}
	}
	for i, line := range bytes.Split(run, []byte("\n")) {
		if len(line) > 0 {
			add(n.Line(int64(i+1), line))
		}
	}
	add(n.End())
	return b.String()
}
