package sanitize

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/evcap/evcap/envelope"
)

// maxDepth bounds the nesting the walker follows; deeper values are copied
// as they are (the redactor has its own, equal or lower, bound).
const maxDepth = 512

var errDepth = errors.New("JSON nested too deeply")

// walker rewrites the string and number values of one JSON value without
// re-encoding anything it does not change: key order, spacing, number
// spelling and escapes of untouched strings stay byte for byte. Keys are
// never rewritten.
type walker struct {
	// str is called for every string value with the path of keys (and
	// array indices as decimal strings) leading to it.
	str func(path []string, s string) (string, bool)
	// num is called for every number value.
	num func(path []string, raw string) (string, bool)

	path []string
	out  []byte
}

// rewrite returns b with the callbacks applied and whether anything
// changed (b itself when not). b must be valid JSON.
func (w *walker) rewrite(b []byte) ([]byte, bool, error) {
	w.out, w.path = w.out[:0], w.path[:0]
	changed := false
	i0 := skipWS(b, 0)
	w.out = append(w.out, b[:i0]...)
	i, err := w.value(b, i0, 0, &changed)
	if err != nil || !changed {
		return b, false, err
	}
	w.out = append(w.out, b[i:]...)
	return append([]byte(nil), w.out...), true, nil
}

func (w *walker) value(b []byte, i, depth int, changed *bool) (int, error) {
	if depth > maxDepth {
		return 0, errDepth
	}
	if i >= len(b) {
		return 0, errors.New("unexpected end of JSON")
	}
	switch c := b[i]; {
	case c == '{':
		w.out = append(w.out, '{')
		i = skipWS(b, i+1)
		first := true
		for i < len(b) && b[i] != '}' {
			if !first {
				if b[i] != ',' {
					return 0, errors.New("expected comma")
				}
				w.out = append(w.out, ',')
				i = skipWS(b, i+1)
			}
			first = false
			ks := i
			ke, err := endString(b, i)
			if err != nil {
				return 0, err
			}
			key, err := decodeString(b[ks:ke])
			if err != nil {
				return 0, err
			}
			w.out = append(w.out, b[ks:ke]...)
			i = ke
			ws := i
			i = skipWS(b, i)
			if i >= len(b) || b[i] != ':' {
				return 0, errors.New("expected colon")
			}
			i = skipWS(b, i+1)
			w.out = append(w.out, b[ws:i]...)
			w.path = append(w.path, key)
			i, err = w.value(b, i, depth+1, changed)
			w.path = w.path[:len(w.path)-1]
			if err != nil {
				return 0, err
			}
			ws = i
			i = skipWS(b, i)
			w.out = append(w.out, b[ws:i]...)
		}
		if i >= len(b) {
			return 0, errors.New("unterminated object")
		}
		w.out = append(w.out, '}')
		return i + 1, nil
	case c == '[':
		w.out = append(w.out, '[')
		ws := i + 1
		i = skipWS(b, i+1)
		w.out = append(w.out, b[ws:i]...)
		for n := 0; i < len(b) && b[i] != ']'; n++ {
			if n > 0 {
				if b[i] != ',' {
					return 0, errors.New("expected comma")
				}
				ws = i
				i = skipWS(b, i+1)
				w.out = append(w.out, b[ws:i]...)
			}
			w.path = append(w.path, strconv.Itoa(n))
			var err error
			i, err = w.value(b, i, depth+1, changed)
			w.path = w.path[:len(w.path)-1]
			if err != nil {
				return 0, err
			}
			ws = i
			i = skipWS(b, i)
			w.out = append(w.out, b[ws:i]...)
		}
		if i >= len(b) {
			return 0, errors.New("unterminated array")
		}
		w.out = append(w.out, ']')
		return i + 1, nil
	case c == '"':
		e, err := endString(b, i)
		if err != nil {
			return 0, err
		}
		raw := b[i:e]
		if w.str != nil {
			s, err := decodeString(raw)
			if err != nil {
				return 0, err
			}
			if ns, ok := w.str(w.path, s); ok && ns != s {
				w.out = envelope.AppendJSONString(w.out, ns)
				*changed = true
				return e, nil
			}
		}
		w.out = append(w.out, raw...)
		return e, nil
	default:
		e := i
		for e < len(b) && !isDelim(b[e]) {
			e++
		}
		if e == i {
			return 0, errors.New("unexpected character in JSON")
		}
		raw := string(b[i:e])
		if w.num != nil && (c == '-' || (c >= '0' && c <= '9')) {
			if nr, ok := w.num(w.path, raw); ok && nr != raw {
				w.out = append(w.out, nr...)
				*changed = true
				return e, nil
			}
		}
		w.out = append(w.out, raw...)
		return e, nil
	}
}

func isDelim(c byte) bool {
	switch c {
	case ',', '}', ']', ' ', '\t', '\n', '\r':
		return true
	}
	return false
}

func skipWS(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// endString returns the index just past the string literal starting at i.
func endString(b []byte, i int) (int, error) {
	if i >= len(b) || b[i] != '"' {
		return 0, errors.New("expected string")
	}
	for j := i + 1; j < len(b); {
		q := bytes.IndexByte(b[j:], '"')
		if q < 0 {
			break
		}
		e := bytes.IndexByte(b[j:j+q], '\\')
		if e < 0 {
			return j + q + 1, nil
		}
		j += e + 2 // the backslash and the byte it escapes
	}
	return 0, errors.New("unterminated string")
}

// decodeString decodes a JSON string literal (with its quotes). Strings
// with no escape or only simple ones are decoded here; the rest (UTF-16
// surrogates, invalid UTF-8, control bytes) by encoding/json, whose result
// this matches.
func decodeString(raw []byte) (string, error) {
	inner := raw[1 : len(raw)-1]
	bs := bytes.IndexByte(inner, '\\')
	if bs < 0 && utf8.Valid(inner) {
		return string(inner), nil
	}
	if bs >= 0 {
		if s, ok := unescapeSimple(inner); ok {
			return s, nil
		}
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", err
	}
	return s, nil
}

// unescapeSimple decodes the content of a string literal, or reports false
// when it holds something it leaves to encoding/json.
func unescapeSimple(inner []byte) (string, bool) {
	if !utf8.Valid(inner) {
		return "", false
	}
	out := make([]byte, 0, len(inner))
	last := 0 // start of the run not yet copied
	for i := 0; i < len(inner); {
		c := inner[i]
		if c < 0x20 {
			return "", false
		}
		if c != '\\' {
			i++
			continue
		}
		out = append(out, inner[last:i]...)
		if i+1 >= len(inner) {
			return "", false
		}
		switch e := inner[i+1]; e {
		case '"', '\\', '/':
			out = append(out, e)
		case 'n':
			out = append(out, '\n')
		case 't':
			out = append(out, '\t')
		case 'r':
			out = append(out, '\r')
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'u':
			if i+6 > len(inner) {
				return "", false
			}
			r, err := strconv.ParseUint(string(inner[i+2:i+6]), 16, 16)
			if err != nil || utf16.IsSurrogate(rune(r)) {
				return "", false
			}
			out = utf8.AppendRune(out, rune(r))
			i += 6
			last = i
			continue
		default:
			return "", false
		}
		i += 2
		last = i
	}
	return string(append(out, inner[last:]...)), true
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
