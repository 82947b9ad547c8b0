package scan

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// mayDeclareContains is mayDeclare as it was, with a search per word.
func mayDeclareContains(raw []byte) bool {
	if bytes.Contains(raw, []byte("cwd")) || bytes.Contains(raw, []byte("directory")) {
		return true
	}
	for i := bytes.Index(raw, []byte(`\u00`)); i >= 0; {
		if i+4 < len(raw) && (raw[i+4] == '6' || raw[i+4] == '7') {
			return true
		}
		j := bytes.Index(raw[i+1:], []byte(`\u00`))
		if j < 0 {
			return false
		}
		i += 1 + j
	}
	return false
}

// TestMayDeclareIsTheSearches: the one search for "d" answers as the
// searches for each word did.
func TestMayDeclareIsTheSearches(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 32))
	pieces := []string{"c", "w", "d", "cw", "wd", "cwd", "dir", "directory", "director", "irectory", "\\u00", "\\u006", "\\u0077", "\\u008", "x", " ", `"`}
	yes := 0
	for range 20000 {
		var b []byte
		for range r.IntN(8) {
			b = append(b, pieces[r.IntN(len(pieces))]...)
		}
		want := mayDeclareContains(b)
		if got := mayDeclare(b); got != want {
			t.Fatalf("%q: mayDeclare %v, the searches %v", b, got, want)
		}
		if want {
			yes++
		}
	}
	if yes < 2000 || yes > 18000 {
		t.Fatalf("%d of 20000 texts may declare: the test exercised little", yes)
	}
}
