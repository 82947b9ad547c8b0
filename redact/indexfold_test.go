package redact

import (
	"bytes"
	"math/rand/v2"
	"testing"
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
