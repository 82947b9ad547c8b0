package jsonpick

import (
	"math/rand/v2"
	"testing"
)

// checkValidator feeds line to a Validator cut at the given places
// (increasing offsets) and checks that End says what Valid says, and that
// Feed says false only of a line that Valid says is not valid.
func checkValidator(t *testing.T, line []byte, cuts []int) {
	t.Helper()
	want := Valid(line)
	var v Validator
	for _, c := range cuts {
		if !v.Feed(line[:c]) && want {
			t.Fatalf("Feed(%q) is false; Valid(%q) is true", line[:c], line)
		}
	}
	if got := v.End(line); got != want {
		t.Fatalf("Validator cut at %v says %v of %q, Valid says %v", cuts, got, line, want)
	}
}

// validatorSeeds are the seeds of the pick tests (the grammar's corner
// cases and every corpus line) and cuts of the grammar's own.
func validatorSeeds(t testing.TB) [][]byte {
	seeds := pickSeeds(t)
	for _, extra := range []string{`{"a":-`, `[-1.5e+`, `{"k":"\u00`, `"\`, `[tru`, `[true`, `[nul]`, `{ } `, `[ ]`, `{"a" : [ 1 , 2 ] , "b" : { } }`,
		`[1]x`, `1 2`, "\"a\x01\"", `{"a":1`, `[`, `{`, ` `, `"\uZZZZ"`, `"\u12G4"`, `[01]`, `[1.]`, `[1e5]`, `[-]`, `{"a"}`, `{"a":}`} {
		seeds = append(seeds, []byte(extra))
	}
	return seeds
}

// cutOnceMax is the longest seed TestValidatorLikeValid cuts at every
// offset once; TestValidatorLikeValidLongSeeds (heavy: the cuts grow with
// the square of the length, 28 s under the race detector) does the longer
// ones up to 4096 bytes.
const cutOnceMax = 256

// TestValidatorLikeValid cuts every seed up to cutOnceMax bytes at every
// offset once and also at every offset in one run, and every seed at
// random places.
func TestValidatorLikeValid(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, line := range validatorSeeds(t) {
		if len(line) <= cutOnceMax {
			for c := 0; c <= len(line); c++ {
				checkValidator(t, line, []int{c})
			}
		}
		if len(line) <= 512 {
			every := make([]int, len(line)+1)
			for c := range every {
				every[c] = c
			}
			checkValidator(t, line, every)
		}
		for range 8 {
			var cuts []int
			for c := 0; c < len(line); c += 1 + rng.IntN(1+len(line)/4) {
				cuts = append(cuts, c)
			}
			checkValidator(t, line, cuts)
		}
	}
}

func FuzzValidator(f *testing.F) {
	for _, l := range pickSeeds(f) {
		f.Add(l, uint16(len(l)/2), uint16(len(l)/3))
	}
	f.Fuzz(func(t *testing.T, line []byte, a, b uint16) {
		x, y := min(int(a), len(line)), min(int(b), len(line))
		checkValidator(t, line, []int{min(x, y), max(x, y)})
	})
}
