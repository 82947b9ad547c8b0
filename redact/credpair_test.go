package redact

import (
	"testing"
)

// TestCredentialPair checks credentialPair on every pair of bytes: it
// holds exactly where some credential word's first two letters match,
// ASCII case folded, which is where hasPrefixFold can match a word (so
// scanAssignments and credentialName skip no position that could).
func TestCredentialPair(t *testing.T) {
	fold := func(c byte) byte {
		if c >= 'A' && c <= 'Z' {
			return c + 'a' - 'A'
		}
		return c
	}
	for a := range 256 {
		for b := range 256 {
			want := false
			for _, w := range credentialWords {
				if fold(byte(a)) == w[0] && fold(byte(b)) == w[1] {
					want = true
				}
			}
			if got := credentialPair(byte(a), byte(b)); got != want {
				t.Fatalf("credentialPair(%q, %q) = %v, want %v", byte(a), byte(b), got, want)
			}
		}
	}
	// hasPrefixFold matches no word at a pair credentialPair rejects,
	// Unicode folds included (the Kelvin sign folds to k, ſ to s).
	for _, s := range []string{"\u212aey", "paſſ", "ſecret", "coo\u212aie", "PASS", "ToKeN", "x-Api-KEY"} {
		for i := 0; i+1 < len(s); i++ {
			for _, w := range credentialWords {
				if hasPrefixFold([]byte(s[i:]), w) && !credentialPair(s[i], s[i+1]) {
					t.Errorf("%q at %d: %q matches but the pair is rejected", s, i, w)
				}
			}
		}
	}
	if credentialName([]byte("DB_PASSWORD")) != 2 || credentialName([]byte("apiKey")) != 1 || credentialName([]byte("type")) != 0 {
		t.Error("credentialName rates the plain cases wrongly")
	}
}
