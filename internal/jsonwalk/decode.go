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
