package redact

import (
	"bytes"
	"math/rand/v2"
	"testing"

	benchgen "github.com/evcap/evcap/bench/gen"
)

func TestIndexFoldMatchesNaive(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	alpha := []byte("sSkK-aAnt_ ")
	for range 20000 {
		s := make([]byte, rng.IntN(30))
		for i := range s {
			s[i] = alpha[rng.IntN(len(alpha))]
		}
		k := bytes.ToLower([]byte{alpha[rng.IntN(len(alpha))], alpha[rng.IntN(len(alpha))]})[:1+rng.IntN(2)]
		want := bytes.Index(bytes.ToLower(s), k)
		if got := indexFold(s, k); got != want {
			t.Fatalf("indexFold(%q, %q) = %d, want %d", s, k, got, want)
		}
	}
}

// TestIndexFoldAnyPivot checks indexFold against a naive search with
// keywords of up to six bytes drawn from letters, digits and punctuation,
// so that every kind of pivot byte (and its position in k) is exercised,
// in text that also holds non-ASCII bytes (Kelvin sign, long s, invalid
// UTF-8), which bytes.EqualFold must not fold onto ASCII.
func TestIndexFoldAnyPivot(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	kal := []byte("skKSzZeE-_:0 .")
	extra := [][]byte{[]byte("\u212a"), []byte("\u017f"), {0xff}, {0xc5}}
	pivots := map[int]bool{}
	for range 100000 {
		var s []byte
		for n := rng.IntN(40); len(s) < n; {
			if rng.IntN(12) == 0 {
				s = append(s, extra[rng.IntN(len(extra))]...)
			} else {
				s = append(s, kal[rng.IntN(len(kal))])
			}
		}
		k := make([]byte, 1+rng.IntN(6))
		for i := range k {
			k[i] = kal[rng.IntN(len(kal))]
		}
		k = bytes.ToLower(k)
		pivots[pivot(k)] = true
		want := -1
		for i := 0; i+len(k) <= len(s); i++ {
			if bytes.Equal(bytes.ToLower(s[i:i+len(k)]), k) && asciiOnly(s[i:i+len(k)]) {
				want = i
				break
			}
		}
		if got := indexFold(s, k); got != want {
			t.Fatalf("indexFold(%q, %q) = %d, want %d (pivot %d)", s, k, got, want, pivot(k))
		}
		if got := indexFoldFirstByte(s, k); got != want {
			t.Fatalf("indexFoldFirstByte(%q, %q) = %d, want %d", s, k, got, want)
		}
	}
	if len(pivots) < 6 {
		t.Fatalf("pivots at only %d positions: the test exercised too little", len(pivots))
	}
}

func asciiOnly(b []byte) bool {
	for _, c := range b {
		if c >= 0x80 {
			return false
		}
	}
	return true
}

// indexFoldFirstByte is indexFold as it was, searching for k's first byte:
// the benchmark's baseline.
func indexFoldFirstByte(s, k []byte) int {
	if len(k) == 0 {
		return 0
	}
	lo := k[0]
	up := lo
	if lo >= 'a' && lo <= 'z' {
		up = lo - 'a' + 'A'
	}
	last := len(s) - len(k) + 1 // candidates start before last
	if last <= 0 {
		return -1
	}
	next := func(c byte, from int) int {
		if j := bytes.IndexByte(s[from:last], c); j >= 0 {
			return from + j
		}
		return last
	}
	// The next occurrence of each case, each searched for once per step.
	nl, nu := next(lo, 0), last
	if up != lo {
		nu = next(up, 0)
	}
	for {
		i := min(nl, nu)
		if i >= last {
			return -1
		}
		if bytes.EqualFold(s[i:i+len(k)], k) {
			return i
		}
		if i == nl {
			nl = next(lo, i+1)
		}
		if i == nu && up != lo {
			nu = next(up, i+1)
		}
	}
}

// BenchmarkIndexFold finds every anchor and required literal of the
// upstream rules in generated prose and tool output, as anchoredMatches
// and hasRequired do, with the rarest-byte pivot and with the first byte.
func BenchmarkIndexFold(b *testing.B) {
	var raw bytes.Buffer
	if _, err := benchgen.Write(&raw, benchgen.Options{Provider: "claude", Size: 1 << 20, Seed: 1}); err != nil {
		b.Fatal(err)
	}
	text := raw.Bytes()
	r, err := New(Options{})
	if err != nil {
		b.Fatal(err)
	}
	var lits [][]byte
	for _, ru := range r.rules {
		lits = append(lits, ru.anchorLits...)
		lits = append(lits, ru.required...)
	}
	for _, c := range []struct {
		name string
		f    func(s, k []byte) int
	}{{"pivot", indexFold}, {"first-byte", indexFoldFirstByte}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(text) * len(lits)))
			n := 0
			for b.Loop() {
				for _, l := range lits {
					for i := 0; ; {
						j := c.f(text[i:], l)
						if j < 0 {
							break
						}
						n++
						i += j + 1
					}
				}
			}
		})
	}
}
