package litdfa

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// found lists the literals d reports in text, sorted.
func found(d *DFA, text string) []int {
	fired := make([]uint32, d.NumOuts())
	var ids []int
	d.Scan(text, 0, fired, 1, func(k int) {
		for _, id := range d.Outs(k) {
			ids = append(ids, int(id))
		}
	})
	slices.Sort(ids)
	return slices.Compact(ids)
}

// TestScanFindsWhatContainsFinds compares the automaton with
// strings.Contains of the lower-cased text on random texts built from
// pieces of overlapping literals in both cases.
func TestScanFindsWhatContainsFinds(t *testing.T) {
	lits := []string{"key", "apikey", "ke", "sk-", "xoxb", "token", "a", "aa", "-_"}
	d := New(lits)
	rng := rand.New(rand.NewPCG(3, 4))
	pieces := []string{"K", "e", "Y", "api", "API", "sk", "-", "_", "xo", "XOXB", "tok", "EN", "a", "A", " ", "é", "\xff"}
	nonEmpty := 0
	for range 20000 {
		var b strings.Builder
		for range rng.IntN(10) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		text := b.String()
		var want []int
		low := strings.ToLower(text)
		for i, l := range lits {
			if strings.Contains(low, l) {
				want = append(want, i)
			}
		}
		got := found(d, text)
		if !slices.Equal(got, want) {
			t.Fatalf("Scan(%q) found %v, want %v", text, got, want)
		}
		if len(want) > 0 {
			nonEmpty++
		}
	}
	if nonEmpty < 5000 {
		t.Fatalf("only %d texts held a literal: the comparison says little", nonEmpty)
	}
}

// TestWideTableIsNarrow compares the 32-bit table with the 16-bit one,
// and a set of literals too large for 16 bits (with the 32-bit table it
// needs) with strings.Contains.
func TestWideTableIsNarrow(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	word := func(n int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = "abcdefghijklmnopqrstuvwxyz0123456789-_"[rng.IntN(38)]
		}
		return string(b)
	}
	small := []string{"key", "apikey", "ke", "sk-", "xoxb", "token", "a", "aa", "-_"}
	var large []string
	for range 3000 {
		large = append(large, word(4+rng.IntN(8)))
	}
	narrow, wide, big := New(small), build(small, true), New(large)
	if narrow.packed == nil || wide.delta == nil || big.delta == nil {
		t.Fatal("the tables are not the ones under test")
	}
	for range 5000 {
		var b strings.Builder
		for range rng.IntN(12) {
			switch rng.IntN(3) {
			case 0:
				b.WriteString(strings.ToUpper(large[rng.IntN(len(large))]))
			case 1:
				b.WriteString(small[rng.IntN(len(small))])
			default:
				b.WriteString(word(rng.IntN(6)))
			}
		}
		text := b.String()
		if got, want := found(wide, text), found(narrow, text); !slices.Equal(got, want) {
			t.Fatalf("wide Scan(%q) found %v, narrow %v", text, got, want)
		}
		var want []int
		low := strings.ToLower(text)
		for i, l := range large {
			if strings.Contains(low, l) {
				want = append(want, i)
			}
		}
		if got := found(big, text); !slices.Equal(got, want) {
			t.Fatalf("Scan(%q) found %v, want %v", text, got, want)
		}
	}
}

// TestScanResumes checks that a text searched in two pieces, the second
// from the state the first ended in, finds a literal across the cut.
func TestScanResumes(t *testing.T) {
	d := New([]string{"token"})
	fired := make([]uint32, d.NumOuts())
	n := 0
	s := d.Scan("my to", 0, fired, 1, func(int) { n++ })
	d.Scan("KEN here", s, fired, 1, func(int) { n++ })
	if n != 1 {
		t.Fatalf("found %d times across the cut, want 1", n)
	}
}

func TestNeedsFold(t *testing.T) {
	for text, want := range map[string]bool{"plain": false, "\u212Aey": true, "\u017Fk-": true, "é": false} {
		if got := NeedsFold(text); got != want {
			t.Errorf("NeedsFold(%q) = %v, want %v", text, got, want)
		}
	}
}
