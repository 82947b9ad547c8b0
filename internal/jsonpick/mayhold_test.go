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
