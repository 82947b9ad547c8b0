package redact

import (
	"slices"
	"strings"
	"testing"
)

// TestScanMatchesLine: Scan reports what Line changes, with the same
// pointers, and a pointer below a key that held a secret names the key
// as redacted, never the secret (Scan does not build the output, but the
// keys in its path are still redacted).
func TestScanMatchesLine(t *testing.T) {
	r := testRedactor(t)
	g := newGen()
	key := "sk-" + "ant-api03-" + g.s(urlSafe, 93)
	cases := []string{
		`{"` + key + `":{"password":"` + g.s(alnum, 16) + `","n":1}}`,
		`{"a":[{"` + key + `":"x"}],"b":"token=` + g.s(alnum, 20) + `"}`,
		`{"k\u0065y":"` + key + `","env":{"HOME":"/home/alice"}}`,
	}
	for _, c := range cases {
		_, lf := r.Line([]byte(c))
		sf := r.Scan([]byte(c))
		if len(lf) == 0 {
			t.Fatalf("%s: no findings", c)
		}
		if !slices.Equal(lf, sf) {
			t.Errorf("%s:\n Line %v\n Scan %v", c, lf, sf)
		}
		for _, f := range sf {
			if strings.Contains(f.Pointer, key[:20]) {
				t.Errorf("%s: pointer %q holds the secret", c, f.Pointer)
			}
		}
	}
}
