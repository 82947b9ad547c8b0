package redact

import (
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
)

// TestResolveRuns compares resolve, which merges spans made of a few runs
// in order, with sorting them and keeping the first of overlapping ones
// (what it did before), on random runs with overlaps, shared starts and
// ties.
func TestResolveRuns(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	rules := []string{"a", "b"}
	merged, gaveUp := 0, 0
	for n := range 20000 {
		var spans []span
		for range 1 + rng.IntN(6) {
			pos := 0
			for range rng.IntN(12) {
				pos += rng.IntN(6)
				sp := span{start: pos, end: pos + 1 + rng.IntN(8), prio: rng.IntN(3), rule: rules[0]}
				if n%4 == 0 {
					sp.rule = rules[rng.IntN(2)] // ties that differ
				}
				spans = append(spans, sp)
			}
		}
		want := slices.Clone(spans)
		slices.SortFunc(want, cmpSpan)
		if len(want) > 0 {
			want = keepFirst(want)
		}
		in := slices.Clone(spans)
		if len(in) > 12 {
			if _, ok := resolveRuns(slices.Clone(in)); ok {
				merged++
			} else {
				gaveUp++
			}
		}
		got := resolve(in)
		// Equal spans that differ come in the sort's order: resolve must
		// then have sorted too.
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("resolve(%v) = %v, sorting gives %v", spans, got, want)
		}
	}
	if merged < 1000 || gaveUp < 100 {
		t.Errorf("merged %d, gave up %d times: the comparison says little", merged, gaveUp)
	}
}
