package jsonpick

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestMayHoldKeyNeverMissesAKey: on random objects whose keys are made
// of pieces of the wanted names, written plainly or with escapes, every
// object that decodes to one with a wanted key (at any depth) is said to
// may hold one; and the test says no to a fair share of the others.
func TestMayHoldKeyNeverMissesAKey(t *testing.T) {
	keys := []string{"cwd", "directory"}
	r := rand.New(rand.NewPCG(41, 42))
	pieces := []string{"c", "w", "d", "cw", "wd", "cwd", "dir", "directory", "director", "irectory", "x", "D"}
	escape := func(s string) string {
		var b strings.Builder
		for _, c := range s {
			if r.IntN(3) == 0 {
				fmt.Fprintf(&b, `\u%04x`, c)
				continue
			}
			b.WriteRune(c)
		}
		return b.String()
	}
	var has func(v any) bool
	has = func(v any) bool {
		switch v := v.(type) {
		case map[string]any:
			for k, x := range v {
				if k == "cwd" || k == "directory" || has(x) {
					return true
				}
			}
		case []any:
			for _, x := range v {
				if has(x) {
					return true
				}
			}
		}
		return false
	}
	holding, refused := 0, 0
	for range 20000 {
		var key strings.Builder
		for range 1 + r.IntN(3) {
			key.WriteString(pieces[r.IntN(len(pieces))])
		}
		k := key.String()
		if r.IntN(2) == 0 {
			k = escape(k)
		}
		line := `{"a":{"` + k + `":"/p"},"b":"` + pieces[r.IntN(len(pieces))] + `"}`
		var v any
		if err := json.Unmarshal([]byte(line), &v); err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		got := MayHoldKey([]byte(line), keys)
		if has(v) {
			holding++
			if !got {
				t.Fatalf("%s holds a wanted key; MayHoldKey said no", line)
			}
		} else if !got {
			refused++
		}
	}
	if holding < 1000 || refused < 1000 {
		t.Fatalf("%d objects held a key, %d others were refused: the test exercised little", holding, refused)
	}
}

// TestContainsByRarest: containsByRarest answers as bytes.Contains for
// keys found at the start, the end, overlapping partial matches and
// not at all, and for keys whose rarest byte repeats or is not a letter.
func TestContainsByRarest(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	keys := []string{"cwd", "directory", "stage", "ww", "a", "x_y", "zz9"}
	alphabet := "cwdirectoyxz_9a\"{}:"
	for range 20000 {
		n := r.IntN(24)
		b := make([]byte, n)
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
		for _, k := range keys {
			if r.IntN(4) == 0 && len(k) <= n {
				at := r.IntN(n - len(k) + 1)
				copy(b[at:], k)
			}
			if got, want := containsByRarest(b, k), strings.Contains(string(b), k); got != want {
				t.Fatalf("containsByRarest(%q, %q) = %v, bytes.Contains says %v", b, k, got, want)
			}
		}
	}
	if i := rarestByte("cwd"); i != 1 {
		t.Fatalf(`rarestByte("cwd") = %d, want 1 (the w)`, i)
	}
	if i := rarestByte("directory"); i != 8 {
		t.Fatalf(`rarestByte("directory") = %d, want 8 (the y)`, i)
	}
}
