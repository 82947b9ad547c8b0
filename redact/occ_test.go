package redact

import (
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// TestLitFinderMatchesSearch checks that the occurrences a litFinder
// takes from keyword hits are appendIndexFoldAll's and indexFold's, for
// every literal the rules look for (anchors, required literals,
// keywords), on random texts made of those literals in mixed case, parts
// of them and other bytes, also when the text is a piece of a longer
// scanned one.
func TestLitFinderMatchesSearch(t *testing.T) {
	r, err := New(Options{Home: "/home/alice", Project: "/srv/proj", Temp: []string{"/tmp"}})
	if err != nil {
		t.Fatal(err)
	}
	var lits [][]byte
	for _, ru := range r.rules {
		ru.ready()
		lits = append(lits, ru.anchorLive...)
		lits = append(lits, ru.required...)
		lits = append(lits, ru.keywords...)
	}
	rng := rand.New(rand.NewPCG(16, 20))
	fill := []string{" ", "-", ".", "_", "\n", "é", "K", "x", "a", "s", "3", "/"}
	indexed, found := 0, 0
	n := 400
	if raceEnabled {
		n = 16 // each text is searched for some 600 literals
	}
	for range n {
		var b strings.Builder
		for b.Len() < 200+rng.IntN(800) {
			switch rng.IntN(3) {
			case 0:
				l := string(lits[rng.IntN(len(lits))])
				if rng.IntN(2) == 0 {
					l = strings.ToUpper(l)
				}
				if rng.IntN(4) == 0 {
					l = l[:rng.IntN(len(l)+1)]
				}
				b.WriteString(l)
			default:
				b.WriteString(fill[rng.IntN(len(fill))])
			}
		}
		whole := []byte(b.String())
		// The searched text is whole[a:e]; the hits are of whole.
		a := rng.IntN(len(whole) / 4)
		e := len(whole) - rng.IntN(len(whole)/4)
		text := whole[a:e]
		var scratch []kwHit
		all := r.keywords.scanHits(whole, nil, &scratch)
		var in []kwHit
		for _, h := range all {
			if h.end > a && h.end <= e {
				in = append(in, h)
			}
		}
		f := &litFinder{r: r, hits: in, a: a}
		for _, l := range lits {
			want := appendIndexFoldAll(nil, text, l)
			got := f.appendAll(nil, text, l)
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("occurrences of %q in %q: hits give %v, search %v", l, text, got, want)
			}
			if c, w := f.contains(text, l), indexFold(text, l) >= 0; c != w {
				t.Fatalf("contains %q in %q: %v, indexFold %v", l, text, c, w)
			}
			if f.indexed(l) {
				indexed++
				if len(want) > 0 {
					found++
				}
			}
		}
	}
	if indexed < n*len(lits)/2 || found < n {
		t.Errorf("%d literal searches answered from hits, %d with occurrences: the comparison says little", indexed, found)
	}
}
