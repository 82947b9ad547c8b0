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
			found := r.findSpansDepth(view, depth+1)
			// The spans are resolved, so their bounds ascend: mapped in
			// one pass.
			pos := make([]int, 0, 2*len(found))
			for _, s := range found {
				pos = append(pos, s.start, s.end)
			}
			jsonwalk.RawOffsets(text, pos)
			for k, s := range found {
				if pos[2*k+1] > pos[2*k] {
					s.start, s.end = pos[2*k], pos[2*k+1]
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
	for i := 0; ; {
		s, j, e := nextBase64Run(text, i)
		if s < 0 {
			break
		}
		if j-s >= minB64Run && (s == 0 || !isIdentByte(text[s-1]) || text[s-1] == '-' || text[s-1] == '_') {
			spans = r.base64Spans(text, s, j, e, depth, spans)
		}
		i = e
		if i == j {
			i = j + 1
		}
	}
	return spans
}

// nextBase64Run returns the next maximal run text[s:j] of base64 or
// base64url bytes at or after i (text[i-1] is not one) that may be
// minB64Run long, with its padding up to e; s is -1 when there is none.
// Every such run that starts at or after i covers text[i+minB64Run-1]:
// when that byte is not base64 the search jumps past it (text is mostly
// words shorter than a run), and otherwise it finds the run around it,
// which may still be shorter.
func nextBase64Run(text []byte, i int) (s, j, e int) {
	for i+minB64Run <= len(text) {
		p := i + minB64Run - 1
		if !isB64URLByte(text[p]) {
			i = p + 1
			continue
		}
		j = p + 1
		for p > i && isB64URLByte(text[p-1]) {
			p--
		}
		for j < len(text) && isB64URLByte(text[j]) {
			j++
		}
		e = j
		for e < len(text) && e < j+2 && text[e] == '=' {
			e++
		}
		return p, j, e
	}
	return -1, 0, 0
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
	// check those first, then the whole run, and allocate only for a run
	// that is text.
	var head [12]byte
	if n, err := enc.Decode(head[:], b[:min(len(b), 16)/4*4]); err != nil || !printable(head[:n]) || !utf8.Valid(trimPartialRune(head[:n])) {
		return nil, false
	}
	var win [64]byte // decoded bytes whose UTF-8 is not checked yet
	n := 0
	for k := 0; k < len(b); k += 4 {
		m, err := enc.Decode(win[n:n+3], b[k:min(k+4, len(b))])
		if err != nil || !printable(win[n:n+m]) {
			return nil, false
		}
		n += m
		if n > len(win)-3 {
			// Check the complete characters; an incomplete one at the
			// end waits for the bytes that finish it.
			t := trimPartialRune(win[:n])
			if !utf8.Valid(t) {
				return nil, false
			}
			n = copy(win[:], win[len(t):n])
		}
	}
	if !utf8.Valid(win[:n]) {
		return nil, false
	}
	out := make([]byte, enc.DecodedLen(len(b)))
	m, err := enc.Decode(out, b)
	if err != nil {
		return nil, false
	}
	return out[:m], true
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
			k := bytes.IndexByte(text[i:], '%')
			if k < 0 {
				break
			}
			i += k
			if i+2 >= len(text) {
				break
			}
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
