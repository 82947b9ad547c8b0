package redact

import (
	"bytes"
	"encoding/base64"
	"unicode/utf8"

	"github.com/evcap/evcap/internal/jsonwalk"
)

// Decoded views.
//
// A secret can reach a capture in a form a reader decodes in their head
// but a rule would not see: a JSON escape ("\u0073k-ant-…", a string
// inside a string), base64 ("kubectl get secret -o yaml", "echo … |
// base64") or percent-encoding in a URL. Before the rules are trusted,
// each text is also matched in these views, and a hit in a view is mapped
// back onto the bytes of the text that encode it:
//
//   - escape view: the text with JSON escapes resolved, when it holds one
//     that can hide a rule's bytes (\uXXXX, \/, \\); a hit maps to the
//     escapes that spell it.
//   - percent view: the text with %XX resolved; a hit maps to its bytes.
//   - base64 view: each run of 16 or more base64 or base64url characters
//     that decodes to printable text; a hit maps to the 4-character groups
//     that encode its bytes, so every bit of the secret is replaced.
//
// Views nest up to maxDecodeDepth (base64 of a percent-encoded URL, a JSON
// string inside a JSON string inside base64). Views are not gated by the
// raw text's keyword prefilter: their keywords are looked for in the
// decoded text itself.

// maxDecodeDepth is how many decodings deep a hit is looked for.
const maxDecodeDepth = 3

// minB64Run is the shortest base64 run that is decoded.
const minB64Run = 16

// decodedSpans returns the spans found in the decoded views of text,
// mapped onto text. They are not resolved against each other.
func (r *Redactor) decodedSpans(text []byte, depth int, spans []span) []span {
	if depth >= maxDecodeDepth {
		return spans
	}
	if hasHidingEscape(text) {
		view := jsonwalk.AppendDecoded(make([]byte, 0, len(text)), text)
		if !bytes.Equal(view, text) {
			for _, s := range r.findSpansDepth(view, depth+1) {
				pos := []int{s.start, s.end}
				jsonwalk.RawOffsets(text, pos)
				if pos[1] > pos[0] {
					s.start, s.end = pos[0], pos[1]
					spans = append(spans, s)
				}
			}
		}
	}
	if bytes.IndexByte(text, '%') >= 0 {
		if view, ok := percentDecode(text); ok {
			for _, s := range r.findSpansDepth(view, depth+1) {
				s.start, s.end = percentOffset(text, s.start), percentOffset(text, s.end)
				spans = append(spans, s)
			}
		}
	}
	for i := 0; i < len(text); {
		if !isB64URLByte(text[i]) {
			i++
			continue
		}
		j := i
		for j < len(text) && isB64URLByte(text[j]) {
			j++
		}
		e := j
		for e < len(text) && e < j+2 && text[e] == '=' {
			e++
		}
		if j-i >= minB64Run && (i == 0 || !isIdentByte(text[i-1]) || text[i-1] == '-' || text[i-1] == '_') {
			spans = r.base64Spans(text, i, j, e, depth, spans)
		}
		i = e
		if i == j {
			i = j + 1
		}
	}
	return spans
}

// base64Spans decodes text[i:j] (padding up to e) and maps the hits found
// in it back onto 4-character groups.
func (r *Redactor) base64Spans(text []byte, i, j, e, depth int, spans []span) []span {
	run := text[i:j]
	enc := base64.RawStdEncoding
	url, std := false, false
	for _, c := range run {
		switch c {
		case '-', '_':
			url = true
		case '+', '/':
			std = true
		}
	}
	if url {
		if std {
			return spans
		}
		enc = base64.RawURLEncoding
	}
	n := len(run)
	if n%4 == 1 {
		n-- // a lone trailing character holds no whole byte
	}
	dec, ok := printableBase64(enc, run[:n])
	if !ok {
		return spans
	}
	for _, s := range r.findSpansDepth(dec, depth+1) {
		rs := i + s.start/3*4
		re := i + (s.end+2)/3*4
		if re >= i+n {
			re = e // the padding goes with the last group
		}
		s.start, s.end = rs, min(re, e)
		spans = append(spans, s)
	}
	return spans
}

// printableBase64 decodes b and reports whether the result is text a
// reader could read: valid UTF-8 without control characters other than
// tab, newline and carriage return. It stops at the first group that is
// not, so binary runs cost little.
func printableBase64(enc *base64.Encoding, b []byte) ([]byte, bool) {
	// Most runs (paths, identifiers, digests) fail in their first groups:
	// check those before allocating.
	var head [12]byte
	if n, err := enc.Decode(head[:], b[:min(len(b), 16)/4*4]); err != nil || !printable(head[:n]) {
		return nil, false
	}
	out := make([]byte, 0, len(b)*3/4+3)
	var buf [3]byte
	for k := 0; k < len(b); k += 4 {
		q := b[k:min(k+4, len(b))]
		m, err := enc.Decode(buf[:], q)
		if err != nil {
			return nil, false
		}
		for _, c := range buf[:m] {
			if c < 0x20 && c != '\t' && c != '\n' && c != '\r' || c == 0x7f {
				return nil, false
			}
		}
		out = append(out, buf[:m]...)
		if k >= 4 && k%64 == 0 && !utf8.Valid(trimPartialRune(out)) {
			return nil, false
		}
	}
	return out, utf8.Valid(out)
}

// trimPartialRune drops an incomplete UTF-8 sequence at the end of b.
func trimPartialRune(b []byte) []byte {
	for k := 1; k <= 3 && k <= len(b); k++ {
		if utf8.RuneStart(b[len(b)-k]) {
			if !utf8.FullRune(b[len(b)-k:]) {
				return b[:len(b)-k]
			}
			break
		}
	}
	return b
}

func isB64URLByte(c byte) bool { return b64Bytes[c] }

// b64Bytes marks the bytes of base64 and base64url, without padding.
var b64Bytes = func() (t [256]bool) {
	for c := range 256 {
		b := byte(c)
		t[c] = isAlnum(b) || b == '+' || b == '/' || b == '-' || b == '_'
	}
	return t
}()

// hasHidingEscape reports a JSON escape that can stand for the bytes of a
// rule or a path: \uXXXX, an escaped slash or an escaped backslash. Other
// escapes (\n, \t, \") sit between tokens, which the rules allow for.
func hasHidingEscape(text []byte) bool {
	for i := 0; ; {
		k := bytes.IndexByte(text[i:], '\\')
		if k < 0 || i+k+1 >= len(text) {
			return false
		}
		switch text[i+k+1] {
		case 'u', '/', '\\':
			return true
		}
		i += k + 2
	}
}

func unhex(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// percentDecode resolves every %XX in text; ok is false when there is none.
func percentDecode(text []byte) ([]byte, bool) {
	var out []byte
	last := 0
	for i := 0; i+2 < len(text); i++ {
		if text[i] != '%' {
			continue
		}
		h, ok1 := unhex(text[i+1])
		l, ok2 := unhex(text[i+2])
		if !ok1 || !ok2 {
			continue
		}
		if out == nil {
			out = make([]byte, 0, len(text))
		}
		out = append(out, text[last:i]...)
		out = append(out, h<<4|l)
		last = i + 3
		i += 2
	}
	if out == nil {
		return nil, false
	}
	return append(out, text[last:]...), true
}

// percentOffset maps a position in percentDecode(text) to text.
func percentOffset(text []byte, pos int) int {
	d := 0
	for i := 0; i < len(text); {
		if d >= pos {
			return i
		}
		if text[i] == '%' && i+2 < len(text) {
			if _, ok := unhex(text[i+1]); ok {
				if _, ok := unhex(text[i+2]); ok {
					i += 3
					d++
					continue
				}
			}
		}
		i++
		d++
	}
	return len(text)
}

func printable(b []byte) bool {
	for _, c := range b {
		if c < 0x20 && c != '\t' && c != '\n' && c != '\r' || c == 0x7f {
			return false
		}
	}
	return true
}
