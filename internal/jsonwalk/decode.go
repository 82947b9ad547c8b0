package jsonwalk

import (
	"bytes"
	"encoding/binary"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// The string decoder. It decodes as encoding/json does: escapes resolved,
// a surrogate pair to its rune, a lone surrogate and each byte of invalid
// UTF-8 to U+FFFD. It trusts its input to be the content of a valid string
// literal (Walk checks that); on other input it does not fail but keeps
// what it cannot decode.

// AppendDecoded appends the decoding of raw, the content of a JSON string
// literal (between its quotes), to dst.
func AppendDecoded(dst, raw []byte) []byte {
	for i := 0; i < len(raw); {
		c := raw[i]
		switch {
		case c == '\\':
			var n int
			dst, n = appendEscape(dst, raw, i)
			i += n
		case c < utf8.RuneSelf:
			j := plainEnd(raw, i+1)
			dst = append(dst, raw[i:j]...)
			i = j
		default:
			r, n := utf8.DecodeRune(raw[i:])
			if r == utf8.RuneError && n == 1 {
				dst = utf8.AppendRune(dst, utf8.RuneError)
			} else {
				dst = append(dst, raw[i:i+n]...)
			}
			i += n
		}
	}
	return dst
}

// plainEnd returns the end of the run of plain ASCII (no backslash)
// that starts at raw[i]: eight bytes at a time while a word holds neither
// a backslash nor a byte with its high bit set, then byte by byte.
func plainEnd(raw []byte, i int) int {
	for i+8 <= len(raw) {
		x := binary.LittleEndian.Uint64(raw[i:])
		b := x ^ (lo8 * '\\')
		if ((b-lo8)&^b|x)&hi8 != 0 {
			break
		}
		i += 8
	}
	for i < len(raw) && raw[i] != '\\' && raw[i] < utf8.RuneSelf {
		i++
	}
	return i
}

// charAt decodes the character at raw[i] and returns how many decoded
// and raw bytes it takes.
func charAt(raw []byte, i int) (dec, n int) {
	c := raw[i]
	switch {
	case c == '\\':
		var buf [utf8.UTFMax]byte
		d, n := appendEscape(buf[:0], raw, i)
		return len(d), n
	case c < utf8.RuneSelf:
		return 1, 1
	}
	r, n := utf8.DecodeRune(raw[i:])
	if r == utf8.RuneError && n == 1 {
		return 3, 1
	}
	return n, n
}

// appendEscape appends the decoding of the escape at raw[i] and returns
// how many bytes of raw it took.
func appendEscape(dst, raw []byte, i int) ([]byte, int) {
	if i+1 >= len(raw) {
		return append(dst, raw[i]), 1
	}
	switch e := raw[i+1]; e {
	case 'n':
		return append(dst, '\n'), 2
	case 't':
		return append(dst, '\t'), 2
	case 'r':
		return append(dst, '\r'), 2
	case 'b':
		return append(dst, '\b'), 2
	case 'f':
		return append(dst, '\f'), 2
	case 'u':
		if i+6 > len(raw) {
			return append(dst, e), 2
		}
		r1 := hex4(raw[i+2 : i+6])
		if utf16.IsSurrogate(r1) {
			if i+12 <= len(raw) && raw[i+6] == '\\' && raw[i+7] == 'u' {
				if r := utf16.DecodeRune(r1, hex4(raw[i+8:i+12])); r != utf8.RuneError {
					return utf8.AppendRune(dst, r), 12
				}
			}
			r1 = utf8.RuneError
		}
		return utf8.AppendRune(dst, r1), 6
	default:
		return append(dst, e), 2
	}
}

func hex4(b []byte) rune {
	var r rune
	for _, c := range b {
		r <<= 4
		switch {
		case c >= '0' && c <= '9':
			r |= rune(c - '0')
		case c >= 'a' && c <= 'f':
			r |= rune(c - 'a' + 10)
		case c >= 'A' && c <= 'F':
			r |= rune(c - 'A' + 10)
		}
	}
	return r
}

// RawOffsets maps positions in the decoding of raw (the content of a JSON
// string literal) to offsets in raw, in place: a position inside a decoded
// character maps to where that character starts in raw, and the decoded
// length to len(raw). pos must be in ascending order.
func RawOffsets(raw []byte, pos []int) {
	d, k := 0, 0
	for i := 0; i < len(raw) && k < len(pos); {
		if c := raw[i]; c != '\\' && c < utf8.RuneSelf {
			// A run of plain ASCII decodes to itself.
			j := plainEnd(raw, i+1)
			for k < len(pos) && pos[k] < d+j-i {
				pos[k] = i + pos[k] - d
				k++
			}
			d += j - i
			i = j
			continue
		}
		w, n := charAt(raw, i)
		for k < len(pos) && pos[k] < d+w {
			pos[k] = i
			k++
		}
		d += w
		i += n
	}
	for ; k < len(pos); k++ {
		pos[k] = len(raw)
	}
}

// syncMin is the shortest string whose far positions rawOffsetsLen maps
// from a point near them instead of from the start.
const syncMin = 1 << 16

// rawOffsetsLen is RawOffsets for raw whose decoding is decLen bytes
// long. When the positions leave a long stretch of raw unmapped (a
// truncated tool output: a few positions in its head, the cut's end and a
// few in its tail), the ones after the stretch are mapped from a
// character boundary near them, whose decoded offset is decLen less the
// decoded length of what follows it, instead of walking the stretch.
func rawOffsetsLen(raw []byte, decLen int, pos []int) {
	if len(raw) < syncMin || len(pos) == 0 {
		RawOffsets(raw, pos)
		return
	}
	// The largest gap between positions (or before the first).
	k, gap := 0, pos[0]
	for i := 1; i < len(pos); i++ {
		if g := pos[i] - pos[i-1]; g > gap {
			k, gap = i, g
		}
	}
	if gap < syncMin || pos[k] >= decLen {
		RawOffsets(raw, pos)
		return
	}
	q, dq, ok := syncPoint(raw, decLen, pos[k])
	if !ok {
		RawOffsets(raw, pos)
		return
	}
	RawOffsets(raw, pos[:k])
	tail := pos[k:]
	for i := range tail {
		tail[i] -= dq
	}
	RawOffsets(raw[q:], tail)
	for i := range tail {
		tail[i] += q
	}
}

// syncPoint finds a character boundary q of raw whose decoded offset dq
// is at most p (p < decLen), near p: it tries suffixes of raw of growing
// length, each starting at a byte that can only begin a character (an
// ASCII byte that is not a backslash and cannot be the letter or a hex
// digit of an escape), and measures how much each decodes to. ok is false
// when only a suffix of about half of raw or more would do.
func syncPoint(raw []byte, decLen, p int) (q, dq int, ok bool) {
	need := decLen - p // decoded bytes the suffix must hold at least
	for back := need + 64; back <= len(raw)/2; back *= 2 {
		q = len(raw) - back
		for q < len(raw) && !boundaryByte(raw[q]) {
			q++
		}
		if n := decodedLen(raw[q:]); n >= need {
			return q, decLen - n, true
		}
	}
	return 0, 0, false
}

// boundaryByte reports whether a character of a string's content must
// start at a byte c: c is ASCII and neither a backslash nor a byte that
// may follow one in an escape (its letter, or a \u escape's hex digits).
func boundaryByte(c byte) bool {
	if c >= utf8.RuneSelf || c == '\\' || c == '"' || c == '/' || isHex(c) {
		return false
	}
	switch c {
	case 'b', 'f', 'n', 'r', 't', 'u':
		return false
	}
	return true
}

// decodedLen is len(AppendDecoded(nil, raw)).
func decodedLen(raw []byte) int {
	n := 0
	for i := 0; i < len(raw); {
		if c := raw[i]; c != '\\' && c < utf8.RuneSelf {
			j := plainEnd(raw, i+1)
			n += j - i
			i = j
			continue
		}
		w, m := charAt(raw, i)
		n += w
		i += m
	}
	return n
}

// AppendEscaped appends text as the content of a JSON string: '"', '\\'
// and control bytes escaped, every other byte as it is.
func AppendEscaped(dst, text []byte) []byte {
	last := 0
	for i, c := range text {
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		dst = append(dst, text[last:i]...)
		switch c {
		case '"', '\\':
			dst = append(dst, '\\', c)
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\r':
			dst = append(dst, '\\', 'r')
		case '\t':
			dst = append(dst, '\\', 't')
		default:
			const hexd = "0123456789abcdef"
			dst = append(dst, '\\', 'u', '0', '0', hexd[c>>4], hexd[c&15])
		}
		last = i + 1
	}
	return append(dst, text[last:]...)
}

// AppendPointer appends path as an RFC 6901 JSON pointer ("" for the
// root; "~" as "~0", "/" as "~1").
func AppendPointer(dst []byte, path []Step) []byte {
	for _, s := range path {
		if s.Index >= 0 {
			dst = append(dst, '/')
			dst = strconv.AppendInt(dst, int64(s.Index), 10)
			continue
		}
		dst = AppendPointerToken(dst, s.Key)
	}
	return dst
}

// AppendPointerToken appends "/" and one escaped pointer token.
func AppendPointerToken(dst, tok []byte) []byte {
	dst = append(dst, '/')
	if bytes.IndexByte(tok, '~') < 0 && bytes.IndexByte(tok, '/') < 0 {
		return append(dst, tok...)
	}
	for _, c := range tok {
		switch c {
		case '~':
			dst = append(dst, '~', '0')
		case '/':
			dst = append(dst, '~', '1')
		default:
			dst = append(dst, c)
		}
	}
	return dst
}
