package sanitize

import (
	"errors"
	"strconv"
	"strings"

	"github.com/evcap/evcap/envelope"
	"github.com/evcap/evcap/internal/jsonwalk"
)

// Helpers for the walks of a record's JSON (the rewrite after redaction
// is in cands.go).

// holePath is the path of a record's delta, or nil.
func holePath(h *hole) []string {
	if h == nil {
		return nil
	}
	return h.path
}

// pathIs reports whether path leads where want does (keys, and array
// indexes in decimal).
func pathIs(path []jsonwalk.Step, want []string) bool {
	if len(path) != len(want) {
		return false
	}
	for i, s := range path {
		if s.Index >= 0 {
			if strconv.Itoa(s.Index) != want[i] {
				return false
			}
		} else if string(s.Key) != want[i] {
			return false
		}
	}
	return true
}

// lastKey is the key a value sits under, or "" for an array element or
// the root (no key set sanitize looks up holds a decimal index).
func lastKey(path []jsonwalk.Step) []byte {
	if len(path) == 0 || path[len(path)-1].Index >= 0 {
		return nil
	}
	return path[len(path)-1].Key
}

// decodeLiteral decodes a JSON string literal (with its quotes) that
// reading already found valid.
func decodeLiteral(raw []byte) (string, error) {
	b, err := decodeLiteralBytes(raw)
	return string(b), err
}

// decodeLiteralBytes is decodeLiteral into a new slice (never nil) of the
// literal's length: the text is no longer but for invalid UTF-8.
func decodeLiteralBytes(raw []byte) ([]byte, error) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return nil, errors.New("not a JSON string")
	}
	inner := raw[1 : len(raw)-1]
	return jsonwalk.AppendDecoded(make([]byte, 0, len(inner)), inner), nil
}

// rewriteDelta puts a released chunk in place of the delta string at path
// (LineRedactor's finish).
type deltaWalk struct {
	path []string
	text string
	raw  []byte
}

func (v *deltaWalk) Visit(w *jsonwalk.Walker, t *jsonwalk.Token) error {
	if t.Kind == jsonwalk.String && pathIs(w.Path(), v.path) && string(t.Text()) != v.text {
		v.raw = envelope.AppendJSONString(v.raw[:0], v.text)
		t.Replace(v.raw)
	}
	return nil
}

// pointer renders a path as an RFC 6901 JSON pointer ("~" as "~0", "/"
// as "~1").
func pointer(path []string) string {
	n := 0
	for _, p := range path {
		n += 1 + len(p) + strings.Count(p, "~") + strings.Count(p, "/")
	}
	b := make([]byte, 0, n)
	for _, p := range path {
		b = append(b, '/')
		for i := 0; i < len(p); i++ {
			switch c := p[i]; c {
			case '~':
				b = append(b, '~', '0')
			case '/':
				b = append(b, '~', '1')
			default:
				b = append(b, c)
			}
		}
	}
	return string(b)
}
