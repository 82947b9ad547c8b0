package sanitize

import (
	"errors"
	"strconv"
	"strings"

	"github.com/evcap/evcap/envelope"
	"github.com/evcap/evcap/internal/jsonwalk"
)

// The rewrite of a record's JSON after redaction (pseudonyms, times,
// private text, the delta's redacted chunk) is one jsonwalk pass. Most
// strings need none of it: they are judged on their bytes and only those
// that may change are turned into Go strings.

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
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return "", errors.New("not a JSON string")
	}
	return string(jsonwalk.AppendDecoded(nil, raw[1:len(raw)-1])), nil
}

// recordWalk is the Visitor of finish: it holds the item being finished.
type recordWalk struct {
	s     *sanitizer
	it    *item
	learn bool
	raw   []byte
	text  []byte
}

// Visit runs after redaction's in the same walk (redact.JSONVisit): a
// string redaction changed is judged on its redacted text, as a walk of
// redaction's output would see it.
func (v *recordWalk) Visit(w *jsonwalk.Walker, t *jsonwalk.Token) error {
	switch t.Kind {
	case jsonwalk.String:
		text := t.Text()
		if t.Spliced() {
			v.text = t.AppendSpliced(v.text[:0])
			text = v.text
		}
		if ns, ok := v.s.rewriteString(v.it, v.learn, w.Path(), text); ok {
			v.raw = envelope.AppendJSONString(v.raw[:0], ns)
			t.Replace(v.raw)
		}
	case jsonwalk.Number:
		raw := t.Raw()
		if len(raw) != 13 || raw[0] < '0' || raw[0] > '9' {
			return nil // millis rewrites 13-digit integers only
		}
		key := lastKey(w.Path())
		if key == nil || !timeKeys[string(key)] {
			return nil
		}
		if nr, ok := v.s.clock.millis(string(key), string(raw)); ok && nr != string(raw) {
			v.raw = append(v.raw[:0], nr...)
			t.Replace(v.raw)
		}
	}
	return nil
}

// rewriteString returns the new text of the string value text at path,
// and whether it changed.
func (s *sanitizer) rewriteString(it *item, learn bool, path []jsonwalk.Step, text []byte) (string, bool) {
	isDelta := it.hole != nil && pathIs(path, it.hole.path)
	key := lastKey(path)
	if !isDelta && !s.mayRewrite(learn, key, text) {
		return "", false
	}
	orig := string(text)
	v := orig
	if isDelta {
		v = it.hole.chunk.Text
	}
	k := string(key)
	if t, ok := s.clock.isoString(v); ok {
		v = t
	}
	if learn {
		if fam := family(k, v); fam != "" {
			s.ids.learn(fam, v)
		}
	}
	if nv, ok := s.ids.replace(v); ok {
		v = nv
	}
	if s.opts.PrivateText && (isDelta || privateKeys[k]) {
		if nv, ok := privatize(v); ok {
			v = nv
		}
	}
	return v, v != orig
}

// mayRewrite reports whether rewriteString could change a string that is
// not the record's delta: it may be a time, an id to learn, hold a known
// id, or be private text.
func (s *sanitizer) mayRewrite(learn bool, key, text []byte) bool {
	switch {
	case len(text) >= 20 && len(text) <= 30 && text[0] >= '0' && text[0] <= '9':
		return true // maybe an RFC 3339 time (clock.isoString)
	case learn && idKeys[string(key)]:
		return true
	case s.opts.PrivateText && privateKeys[string(key)]:
		return true
	}
	return s.ids.holdsToken(text)
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
