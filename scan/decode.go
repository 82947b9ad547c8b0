package scan

import (
	"encoding/base64"
	"strings"
	"unicode/utf8"
	"unsafe"
)

// maxDepth bounds how many decodings are stacked (base64 of a
// percent-encoded value is depth 2).
const maxDepth = 2

// maxDecode bounds the bytes of candidates decoded in one piece of text, so
// that a many-megabyte base64 image costs one bounded attempt.
const maxDecode = 1 << 20

// A hit is one rule matching in a piece of text. start is the offset in the
// top-level text where the match (or the encoded candidate it was decoded
// from) begins.
type hit struct {
	rule   string
	via    string
	start  int
	secret string
}

// check runs the rules on text and on its decodings, and calls report for
// each hit. A rule is skipped only where the prefilter proves it cannot
// match (the text lacks a literal every match holds, or is too short).
func (m *matcher) check(text string, report func(hit)) {
	m.checkAt(text, "", 0, 0, report)
}

func (m *matcher) checkAt(text, via string, depth, base int, report func(hit)) {
	if text == "" {
		return
	}
	if m.pf != nil {
		m.pf.search(text)
	}

	for i := 0; i < len(m.rules); i++ {
		if m.pf != nil {
			// Only the rules the search marked (or left ungated) can
			// be admitted.
			if i = m.pf.next(i); i < 0 || i >= len(m.rules) {
				break
			}
			if !m.pf.admits(i, text) {
				continue
			}
		}
		r := &m.rules[i]
		var all [][]int
		if r.windows != nil && m.pf != nil {
			all = r.windows(r.re, text)
		} else {
			all = r.re.FindAllStringSubmatchIndex(text, -1)
		}
		for _, mm := range all {
			if mm[2*r.group] < 0 {
				continue
			}
			if r.ok != nil && !r.ok(text, mm) {
				continue
			}
			sec := text[mm[2*r.group]:mm[2*r.group+1]]
			if m.allowed(sec) {
				continue
			}
			at := base
			if via == "" {
				at = mm[0]
			}
			report(hit{rule: r.id, via: via, start: at, secret: sec})
		}
	}
	if m.credential && (m.pf == nil || m.pf.admits(len(m.rules)+entryCredential, text)) {
		for _, sp := range credentialAssignments(text) {
			sec := text[sp[0]:sp[1]]
			if m.allowed(sec) {
				continue
			}
			at := base
			if via == "" {
				at = sp[0]
			}
			report(hit{rule: RuleCredential, via: via, start: at, secret: sec})
		}
	}
	m.pathHits(text, via, base, report)
	if depth >= maxDepth {
		return
	}
	sub := func(kind string) string {
		if via == "" {
			return kind
		}
		return via + "+" + kind
	}
	at := func(off int) int {
		if via == "" {
			return off
		}
		return base
	}
	if strings.IndexByte(text, '\\') >= 0 {
		if d, ok := unescape(text); ok {
			m.checkAt(d, sub("escape"), depth+1, at(0), report)
		}
	}
	if strings.IndexByte(text, '%') >= 0 {
		if d, ok := percentDecode(text); ok {
			m.checkAt(d, sub("percent"), depth+1, at(0), report)
		}
	}
	budget := maxDecode
	for from := 0; budget > 0; {
		c0, c1 := nextB64Run(text, from)
		if c0 < 0 {
			break
		}
		from = c1
		cand := text[c0:c1]
		budget -= len(cand)
		if d, ok := m.decodeBase64(cand); ok {
			m.checkAt(d, sub("base64"), depth+1, at(c0), report)
		}
	}
}

// A candidate for base64 or base64url is what `[A-Za-z0-9+/_-]{16,}={0,2}`
// matches: 16 or more characters of either alphabet, with optional
// padding. nextB64Run finds those matches without the regexp engine;
// TestNextB64RunIsTheRegexp holds the two equal.

// b64Byte are the bytes of the candidate's class.
var b64Byte = func() (t [256]bool) {
	for c := 0; c < 256; c++ {
		t[c] = c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '/' || c == '_' || c == '-'
	}
	return t
}()

// nextB64Run returns the next candidate in text at or after from, as the
// expression's FindAllStringIndex would (-1, -1 when there is none): the
// leftmost place 16 class bytes start is the start of a maximal run (a
// start inside a shorter run has fewer still), the greedy match takes the
// whole run and up to two "=" (not in the class, so the next run starts
// after them). The class is ASCII: bytes of other runes end a run, as the
// runes do.
//
// It jumps: a run of 16 starting at i needs text[i:i+16] all in the
// class, and when the last byte of those that is not is at k, no run of
// 16 starts at i..k (each would hold k), so the next start to try is k+1.
// Each place tried follows a byte not in the class (or is from), so a run
// found there is maximal at its start.
func nextB64Run(text string, from int) (int, int) {
	for i := from; i+16 <= len(text); {
		k := i + 15
		for k >= i && b64Byte[text[k]] {
			k--
		}
		if k >= i {
			i = k + 1
			continue
		}
		j := i + 16
		for j < len(text) && b64Byte[text[j]] {
			j++
		}
		e := j
		for e < len(text) && e < j+2 && text[e] == '=' {
			e++
		}
		return i, e
	}
	return -1, -1
}

// decodeBase64 decodes s in whichever alphabet its characters allow and
// keeps the result only when it is printable text: a secret someone
// encoded, not an image or a random key. It decodes into m's scratch
// buffer: most candidates (ids, hashes, keys) do not decode to text, and
// only text is copied out.
func (m *matcher) decodeBase64(s string) (string, bool) {
	if len(s) > 256<<10 {
		return "", false
	}
	raw := strings.TrimRight(s, "=")
	var enc *base64.Encoding
	switch {
	case strings.ContainsAny(raw, "-_") && strings.ContainsAny(raw, "+/"):
		return "", false
	case strings.ContainsAny(raw, "-_"):
		enc = base64.RawURLEncoding
	default:
		enc = base64.RawStdEncoding
	}
	// A run may carry a trailing partial group (text glued to it); try the
	// longest prefix that is a whole number of characters.
	for cut := 0; cut < 4 && len(raw)-cut >= 16; cut++ {
		src := raw[:len(raw)-cut]
		if n := enc.DecodedLen(len(src)); cap(m.b64) < n {
			m.b64 = make([]byte, n)
		}
		n, err := enc.Decode(m.b64[:cap(m.b64)], unsafe.Slice(unsafe.StringData(src), len(src)))
		if err != nil {
			continue
		}
		if b := m.b64[:n]; printable(b) {
			return string(b), true
		}
		return "", false
	}
	return "", false
}

// printable reports UTF-8 text with almost no control bytes.
func printable(b []byte) bool {
	if len(b) < 8 || !utf8.Valid(b) {
		return false
	}
	bad := 0
	for _, c := range b {
		if c < 0x20 && c != '\n' && c != '\r' && c != '\t' || c == 0x7f {
			bad++
		}
	}
	return bad*20 <= len(b)
}

// unescape decodes JSON-style escapes left in text (\uXXXX, \n, \", \\,
// \/); anything else is kept as it is. ok is false when nothing changed.
func unescape(s string) (string, bool) {
	if !hasEscape(s) {
		// Nothing to decode: do not copy a large text to find that out.
		return "", false
	}
	return unescapeAll(s)
}

// unescapeAll is unescape without the shortcut.
func unescapeAll(s string) (string, bool) {
	var b strings.Builder
	b.Grow(len(s))
	changed := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 >= len(s) {
			b.WriteByte(c)
			continue
		}
		n := s[i+1]
		switch n {
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		case '"', '\\', '/', '\'':
			b.WriteByte(n)
		case 'u':
			if i+5 < len(s) {
				if r, ok := hex4(s[i+2 : i+6]); ok {
					if r >= 0xd800 && r < 0xdc00 && i+11 < len(s) && s[i+6] == '\\' && s[i+7] == 'u' {
						if lo, ok := hex4(s[i+8 : i+12]); ok && lo >= 0xdc00 && lo < 0xe000 {
							b.WriteRune(0x10000 + (r-0xd800)<<10 + (lo - 0xdc00))
							i += 11
							changed = true
							continue
						}
					}
					b.WriteRune(r)
					i += 5
					changed = true
					continue
				}
			}
			b.WriteByte(c)
			continue
		case 'x':
			if i+3 < len(s) {
				if v, ok := hexN(s[i+2 : i+4]); ok {
					b.WriteByte(byte(v))
					i += 3
					changed = true
					continue
				}
			}
			b.WriteByte(c)
			continue
		default:
			b.WriteByte(c)
			continue
		}
		i++
		changed = true
	}
	return b.String(), changed
}

func hex4(s string) (rune, bool) {
	v, ok := hexN(s)
	return rune(v), ok
}

func hexN(s string) (int, bool) {
	v := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
			v = v<<4 | int(c-'0')
		case c >= 'a' && c <= 'f':
			v = v<<4 | int(c-'a'+10)
		case c >= 'A' && c <= 'F':
			v = v<<4 | int(c-'A'+10)
		default:
			return 0, false
		}
	}
	return v, true
}

// percentDecode decodes %XX sequences (and leaves a lone % alone). ok is
// false when there were none.
func percentDecode(s string) (string, bool) {
	if !hasPercentEscape(s) {
		return "", false
	}
	return percentDecodeAll(s)
}

// percentDecodeAll is percentDecode without the shortcut.
func percentDecodeAll(s string) (string, bool) {
	var b strings.Builder
	b.Grow(len(s))
	changed := false
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) {
			if v, ok := hexN(s[i+1 : i+3]); ok {
				b.WriteByte(byte(v))
				i += 2
				changed = true
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String(), changed
}

// hasPercentEscape reports whether percentDecode would change s.
func hasPercentEscape(s string) bool {
	for i := strings.IndexByte(s, '%'); i >= 0; {
		if i+2 < len(s) {
			if _, ok := hexN(s[i+1 : i+3]); ok {
				return true
			}
		}
		j := strings.IndexByte(s[i+1:], '%')
		if j < 0 {
			return false
		}
		i += 1 + j
	}
	return false
}

// hasEscape reports whether unescape would change s: whether some
// backslash starts an escape it decodes (until the first one does, it
// looks at every backslash).
func hasEscape(s string) bool {
	for i := strings.IndexByte(s, '\\'); i >= 0 && i+1 < len(s); {
		switch s[i+1] {
		case 'n', 't', 'r', '"', '\\', '/', '\'':
			return true
		case 'u':
			if i+5 < len(s) {
				if _, ok := hex4(s[i+2 : i+6]); ok {
					return true
				}
			}
		case 'x':
			if i+3 < len(s) {
				if _, ok := hexN(s[i+2 : i+4]); ok {
					return true
				}
			}
		}
		j := strings.IndexByte(s[i+1:], '\\')
		if j < 0 {
			return false
		}
		i += 1 + j
	}
	return false
}
