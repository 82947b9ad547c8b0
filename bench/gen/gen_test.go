package gen_test

import (
	"bytes"
	"testing"

	"github.com/evcap/evcap/bench/gen"
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
