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
