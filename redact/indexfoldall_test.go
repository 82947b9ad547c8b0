package redact

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// indexFoldEach is what the matchers did before appendIndexFoldAll: find
// one occurrence, then search again from just past it.
func indexFoldEach(s, k []byte) []int {
	var occ []int
	for i := 0; ; {
		j := indexFold(s[i:], k)
		if j < 0 {
			return occ
		}
		occ = append(occ, i+j)
		i += j + 1
	}
}

// TestIndexFoldAll checks that appendIndexFoldAll finds exactly the
// occurrences the one-at-a-time loop finds, overlapping and mixed-case ones
// included, on random texts over a small alphabet (so that keywords, their
// pieces and their case variants occur often) and for every keyword and
// anchor literal of the built-in rules.
func TestIndexFoldAll(t *testing.T) {
	rng := rand.New(rand.NewPCG(16, 17))
	const alphabet = "aAsSkK-_eEnNtT oOpP=:\u017f"
	keys := [][]byte{[]byte("a"), []byte("aa"), []byte("sk-"), []byte("token"), []byte("pass"), []byte("-_"), []byte("aaa")}
	for _, ru := range builtinRules() {
		keys = append(keys, ru.keywords...)
		keys = append(keys, ru.anchorLits...)
		keys = append(keys, ru.required...)
	}
	for n := 0; n < 3000; n++ {
		b := make([]byte, rng.IntN(80))
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		for _, k := range keys {
			if len(k) == 0 {
				continue
			}
			want := indexFoldEach(b, k)
			got := appendIndexFoldAll(nil, b, k)
			if !slices.Equal(got, want) {
				t.Fatalf("text %q, literal %q: got %v, want %v", b, k, got, want)
			}
		}
	}
	// Appends, keeping what occ held.
	if got := appendIndexFoldAll([]int{7}, []byte("xTOKENtoken"), []byte("token")); !slices.Equal(got, []int{7, 1, 6}) {
		t.Fatalf("append: got %v", got)
	}
}
