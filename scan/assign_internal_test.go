package scan

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestAssignments checks the one-pass finders of assignRe and flagRe
// matches against the regexps themselves: on every corpus file, and on
// random text drawn from the bytes the patterns turn on (name bytes,
// quotes, blanks, separators, dashes, runs longer than the names' bounds,
// and a byte that is no ASCII).
func TestAssignments(t *testing.T) {
	type match struct{ ns, ne, end int }
	check := func(name, text string) {
		t.Helper()
		for _, c := range []struct {
			what string
			re   func(string) [][]int
			find func(string, func(ns, ne, end int))
		}{
			{"assignRe", func(s string) [][]int { return assignRe.FindAllStringSubmatchIndex(s, -1) }, assignments},
			{"flagRe", func(s string) [][]int { return flagRe.FindAllStringSubmatchIndex(s, -1) }, flags},
		} {
			var want, got []match
			for _, m := range c.re(text) {
				want = append(want, match{m[2], m[3], m[1]})
			}
			c.find(text, func(ns, ne, end int) { got = append(got, match{ns, ne, end}) })
			if !slices.Equal(got, want) {
				t.Fatalf("%s, %s on %q:\n got %v\nwant %v", name, c.what, text, got, want)
			}
		}
	}
	files, err := filepath.Glob("../testdata/corpus/*/*")
	if err != nil || len(files) == 0 {
		t.Fatalf("no corpus files (%v)", err)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		check(f, string(b))
	}
	pieces := []string{"a", "Z", "_", "9", ".", "-", "--", "\"", "'", " ", "\t", "=", ":", ":=", "\n", "é", "x",
		"password", "--token", "abcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghij", "PGPASSWORD", "export ", "key", "\\", "abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz0123456789abcdefghij"}
	r := rand.New(rand.NewPCG(1, 2))
	rounds := 20000
	if raceOn {
		rounds = 2000
	}
	for range rounds {
		var s []byte
		for range 1 + r.IntN(24) {
			s = append(s, pieces[r.IntN(len(pieces))]...)
		}
		check("random", string(s))
	}
}
