package jsonpick

import "bytes"

// MayHoldKey reports whether the JSON text b can hold a member named one
// of keys (lower-case ASCII words): one of them written plainly, or an
// escape of a lower-case letter (\u0061 to \u007a), with which a key can
// be spelled. False means no member of b has any of those names, at any
// depth, so a reader looking for them need not parse b at all.
func MayHoldKey(b []byte, keys []string) bool {
	for _, k := range keys {
		if bytes.Contains(b, []byte(k)) {
			return true
		}
	}
	for i := bytes.Index(b, []byte(`\u00`)); i >= 0; {
		if i+4 < len(b) && (b[i+4] == '6' || b[i+4] == '7') {
			return true
		}
		j := bytes.Index(b[i+1:], []byte(`\u00`))
		if j < 0 {
			return false
		}
		i += 1 + j
	}
	return false
}
