package redact

import (
	"encoding/base64"
	"math/rand/v2"
	"strings"
	"testing"
)

// b64Deltas is a block that streams a base64 run of n deltas of 40
// characters between two bits of prose.
func b64Deltas(n int, seed uint64) []string {
	rng := rand.New(rand.NewPCG(seed, 7))
	deltas := []string{"here it is: "}
	for range n {
		b := make([]byte, 30)
		for j := range b {
			b[j] = byte(rng.IntN(256))
		}
		deltas = append(deltas, base64.StdEncoding.EncodeToString(b))
	}
	return append(deltas, " and then", " some prose after it.")
}

func joinChunks(cs []Chunk) string {
	var b strings.Builder
	for _, c := range cs {
		b.WriteString(c.Text)
	}
	return b.String()
}

// TestStreamHoldsABase64RunToItsEnd: a base64 run streamed a few bytes a
// delta is redacted as Chunks redacts the whole block, whatever its
// length: a run of 1024 bytes or more is one [BINARY] token, and none of
// its bytes are released before it ends. The stream held only the last
// 256 bytes of a run back, so the head of a longer one went out as it was
// (Chunks replaced it); the test fails that way without the fix.
func TestStreamHoldsABase64RunToItsEnd(t *testing.T) {
	r, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{3, 10, 20, 100, 500, 3000} {
		deltas := b64Deltas(n, uint64(n))
		want := joinChunks(r.Chunks(deltas))
		for _, batch := range []int{0, 4096} {
			s := r.NewStream(0)
			s.Batch(batch)
			var got []Chunk
			for i, d := range deltas {
				out := s.Push(d)
				for _, c := range out {
					if i < len(deltas)-2 && n*40 >= 1024 && strings.Contains(deltas[1], c.Text) && c.Text != "" && c.Text != deltas[0] {
						t.Errorf("n=%d batch=%d: part of the run released before it ended: %.40q", n, batch, c.Text)
					}
				}
				got = append(got, out...)
			}
			got = append(got, s.Flush()...)
			if len(got) != len(deltas) {
				t.Errorf("n=%d batch=%d: %d chunks for %d deltas", n, batch, len(got), len(deltas))
			}
			if g := joinChunks(got); g != want {
				t.Errorf("n=%d batch=%d: stream gives %.100q, Chunks %.100q", n, batch, g, want)
			}
		}
		if n*40 >= 1024 && !strings.Contains(want, "[BINARY:") {
			t.Errorf("n=%d: Chunks kept a %d-byte run: %.100q", n, n*40, want)
		}
	}
}

// TestStreamLooksLessAtALongHold: a stream that holds a long text it
// cannot release yet does not scan it again for every delta (that was
// quadratic: 15 s for a 240 KB run), and it still releases the text at
// once when a delta ends the run.
func TestStreamLooksLessAtALongHold(t *testing.T) {
	r, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	deltas := b64Deltas(2000, 1)
	s := r.NewStream(0)
	var got []Chunk
	for i, d := range deltas[:len(deltas)-2] {
		out := s.Push(d)
		if len(out) > 0 && i > 0 {
			t.Fatalf("delta %d of the run released %d chunks", i, len(out))
		}
		got = append(got, out...)
	}
	// 2000 deltas of 40 bytes: a look per delta up to backoffFrom (512
	// bytes, 13 deltas), then one each time the held text grows by half
	// (12 more); without the backoff, 2000.
	if limit := 4096/40 + 20; s.looks > limit {
		t.Errorf("%d looks at a held run of %d deltas, want at most %d", s.looks, len(deltas)-3, limit)
	}
	out := s.Push(deltas[len(deltas)-2]) // " and then" ends the run
	if len(out) != len(deltas)-2 {       // the run and " and then"
		t.Errorf("the delta that ends the run released %d chunks, want %d", len(out), len(deltas)-2)
	}
	got = append(got, out...)
	got = append(got, s.Push(deltas[len(deltas)-1])...)
	got = append(got, s.Flush()...)
	if g, w := joinChunks(got), joinChunks(r.Chunks(deltas)); g != w {
		t.Errorf("stream gives %.100q, Chunks %.100q", g, w)
	}
}

// TestStreamLooksLessWhenEndsDoNotHelp: a held text that a token end does
// not release (the body of a private key block, 40 KB, a line a delta,
// until its END line) gets one look for such an end, then looks only as it
// grows.
func TestStreamLooksLessWhenEndsDoNotHelp(t *testing.T) {
	r, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	deltas := []string{"key:\n-----BEGIN RSA PRIVATE KEY-----\n"}
	rng := rand.New(rand.NewPCG(3, 4))
	for range 600 {
		b := make([]byte, 48)
		for j := range b {
			b[j] = byte(rng.IntN(256))
		}
		deltas = append(deltas, base64.StdEncoding.EncodeToString(b)+"\n")
	}
	deltas = append(deltas, "-----END RSA PRIVATE KEY-----\n", "done.")
	s := r.NewStream(0)
	var got []Chunk
	for _, d := range deltas {
		got = append(got, s.Push(d)...)
	}
	got = append(got, s.Flush()...)
	t.Logf("%d looks for %d deltas", s.looks, len(deltas))
	if limit := 4096/65 + 30; s.looks > limit { // 600 without the backoff
		t.Errorf("%d looks for %d deltas of a held key block, want at most %d", s.looks, len(deltas), limit)
	}
	if g, w := joinChunks(got), joinChunks(r.Chunks(deltas)); g != w {
		t.Errorf("stream gives %.100q, Chunks %.100q", g, w)
	}
}
