package sanitize

import (
	"encoding/json"
	"testing"
)

func TestPointer(t *testing.T) {
	for _, c := range []struct {
		path []string
		want string
	}{
		{nil, ""},
		{[]string{}, ""},
		{[]string{""}, "/"},
		{[]string{"event", "delta", "text"}, "/event/delta/text"},
		{[]string{"a/b", "m~n", "0"}, "/a~1b/m~0n/0"},
		{[]string{"~1", "/~", "ü/x"}, "/~01/~1~0/ü~1x"},
	} {
		if got := pointer(c.path); got != c.want {
			t.Errorf("pointer(%q) = %q, want %q", c.path, got, c.want)
		}
	}
}

// TestDecodeLiteralMatchesEncodingJSON checks the decoding of a string
// payload (jsonwalk's decoder) against encoding/json on the literals
// reading lets through.
func TestDecodeLiteralMatchesEncodingJSON(t *testing.T) {
	cases := []string{
		`""`, `"plain"`, `"a\nb\tc\r\b\f"`, `"\"q\" \\ \/"`, `"\u00e9t\u00E9 \u0000 \u001f"`, `"\ud83d\ude00"`,
		`"\ud83d"`, `"\ud83dx"`, `"ü\n"`, "\"\xff\\n\"", `"a\\"`, `"\\u0041"`,
	}
	for _, c := range cases {
		var want string
		if err := json.Unmarshal([]byte(c), &want); err != nil {
			t.Fatalf("case %s is not a valid literal: %v", c, err)
		}
		if got, err := decodeLiteral([]byte(c)); err != nil || got != want {
			t.Errorf("decodeLiteral(%s) = %q, %v; encoding/json gives %q", c, got, err, want)
		}
	}
}

func FuzzDecodeLiteral(f *testing.F) {
	f.Add(`a\nb\u00e9\ud83d\ude00`)
	f.Add(`\"\\\/\b\f\r\t`)
	f.Fuzz(func(t *testing.T, inner string) {
		raw := []byte(`"` + inner + `"`)
		var want string
		if json.Unmarshal(raw, &want) != nil {
			return // reading never lets an invalid literal through
		}
		if got, err := decodeLiteral(raw); err != nil || got != want {
			t.Fatalf("decodeLiteral(%s) = %q, %v; encoding/json gives %q", raw, got, err, want)
		}
	})
}
