package scan

import (
	"math/rand/v2"
	"regexp"
	"testing"
)

// NewWithoutPrefilter is New with the prefilter off: every rule runs on
// every text. The differential tests compare the two.
func NewWithoutPrefilter(opts Options) (*Scanner, error) {
	s, err := New(opts)
	if s != nil {
		s.noPrefilter = true
	}
	return s, err
}

// RandomSecret returns a random string that one of the built-in rules (or
// the credential-assignment rule) matches.
func RandomSecret(r *rand.Rand) string {
	rs := builtinRules()
	i := r.IntN(len(rs) + 1)
	if i == len(rs) {
		return "PGPASSWORD=" + matchOf(r, regexp.MustCompile(`[A-Za-z0-9]{4}[0-9][A-Za-z0-9]{10}`))
	}
	return matchOf(r, rs[i].re)
}

// RaceOn reports a test binary built with the race detector.
const RaceOn = raceOn

// NewWithFoldChunk is New with the prefilter folding and searching text
// n bytes at a time (at least twice its overlap), so that small inputs
// cross chunk boundaries.
func NewWithFoldChunk(opts Options, n int) (*Scanner, error) {
	s, err := New(opts)
	if s != nil {
		s.pf.chunk = n
	}
	return s, err
}

// SameLines checks every line of input with the one-pass walk and with
// the gjson walk and fails t where they differ; it returns how many
// lines took the one-pass walk.
func SameLines(t *testing.T, opts Options, name string, input []byte, kind Kind) int {
	return sameLines(t, opts, name, input, kind)
}
