// Package termtext makes text taken from a capture safe to print on a
// terminal: every control character that could move the cursor, change
// colours or start an escape sequence is written out as visible text.
//
// It is the one place evcap's listings and reports (cat, census) escape
// input-controlled names and values. It does not wrap, cut or colour text.
package termtext

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Escape returns s with newline and tab as \n and \t, and every other C0
// control, DEL and C1 control (U+0080-U+009F, which some terminals read as
// an escape sequence introducer) as \xNN. A byte that is not valid UTF-8
// becomes U+FFFD, so a raw 0x9b cannot act as a C1 control either.
// Everything else is kept as is.
func Escape(s string) string {
	if !needsEscape(s) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case isControl(r):
			fmt.Fprintf(&b, `\x%02x`, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

func isControl(r rune) bool { return r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) }

// needsEscape reports whether Escape would change s, so that the common
// case, a plain name, is returned without a copy.
func needsEscape(s string) bool {
	for _, r := range s {
		if isControl(r) || r == utf8.RuneError {
			return true
		}
	}
	return false
}
