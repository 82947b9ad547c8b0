package sanitize

import (
	"encoding/json"
	"strings"
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

func TestDecodeStringMatchesEncodingJSON(t *testing.T) {
	cases := []string{
		`""`, `"plain"`, `"a\nb\tc\r\b\f"`, `"\"q\" \\ \/"`, `"\u00e9t\u00E9 \u0000 \u001f"`, `"\ud83d\ude00"`,
		`"\ud83d"`, `"\ud83dx"`, `"ü\n"`, "\"\xff\\n\"", `"\u12zz"`, "\"tab\tinside\"", "\"tab\tand\\n\"", `"a\\"`, `"\\u0041"`,
	}
	for _, c := range cases {
		var want string
		werr := json.Unmarshal([]byte(c), &want)
		got, err := decodeString([]byte(c))
		if werr != nil {
			// Invalid literals: a string without a backslash is taken as it
			// is (as before); one with a backslash goes to encoding/json.
			if err == nil && strings.Contains(c, `\`) {
				t.Errorf("decodeString(%s) = %q, want the error of encoding/json: %v", c, got, werr)
			}
			continue
		}
		if err != nil || got != want {
			t.Errorf("decodeString(%s) = %q, %v; encoding/json gives %q, %v", c, got, err, want, werr)
		}
	}
}

func FuzzDecodeString(f *testing.F) {
	f.Add(`a\nb\u00e9\ud83d\ude00`)
	f.Add(`\"\\\/\b\f\r\t`)
	f.Fuzz(func(t *testing.T, inner string) {
		raw := []byte(`"` + inner + `"`)
		if _, err := endString(raw, 0); err != nil {
			return
		}
		if e, _ := endString(raw, 0); e != len(raw) {
			return // an unescaped quote inside: not one literal
		}
		var want string
		werr := json.Unmarshal(raw, &want)
		got, err := decodeString(raw)
		if werr == nil && (err != nil || got != want) {
			t.Fatalf("decodeString(%s) = %q, %v; encoding/json gives %q", raw, got, err, want)
		}
	})
}
