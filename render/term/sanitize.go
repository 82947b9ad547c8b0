package term

import (
	"strings"
	"unicode/utf8"
)

// cleanState is where a cleaner is inside an escape sequence.
type cleanState uint8

const (
	cleanText      cleanState = iota
	cleanEsc                  // after ESC
	cleanCSI                  // inside ESC [ … (or C1 CSI)
	cleanString               // inside OSC, DCS, SOS, PM or APC
	cleanStringEsc            // ESC seen inside a string sequence
)

// cleaner strips terminal control sequences from untrusted text that arrives
// in pieces. It keeps its state between pieces, so a sequence split across
// two deltas is removed whole and the text around it stays exact.
//
// Removed: CSI sequences, OSC/DCS/SOS/PM/APC string sequences up to their
// terminator (BEL or ST), other two-byte ESC sequences, and every other C0
// and C1 control and DEL. Kept: newline and tab. Invalid UTF-8 becomes
// U+FFFD, so a raw 0x9B byte cannot act as an 8-bit CSI.
//
// A string sequence that is never terminated also ends at a newline: a
// terminal would swallow the rest of the output, but here the damage is
// limited to one line. reset is called at every block boundary for the same
// reason.
type cleaner struct {
	st cleanState
}

func (c *cleaner) reset() { c.st = cleanText }

// clean returns s without control sequences.
func (c *cleaner) clean(s string) string {
	if c.st == cleanText && isPlain(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		// An invalid byte decodes as utf8.RuneError and is written as U+FFFD.
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		c.step(&b, r)
	}
	return b.String()
}

func (c *cleaner) step(b *strings.Builder, r rune) {
	switch c.st {
	case cleanEsc:
		switch {
		case r == '[':
			c.st = cleanCSI
		case r == ']' || r == 'P' || r == 'X' || r == '^' || r == '_':
			c.st = cleanString
		case r >= 0x20 && r <= 0x2f:
			// intermediate byte (ESC ( B): the sequence goes on
		case r >= 0x30 && r <= 0x7e:
			c.st = cleanText // final byte: sequence over
		default:
			c.st = cleanText
			c.step(b, r)
		}
	case cleanCSI:
		switch {
		case r >= 0x20 && r <= 0x3f:
			// parameter or intermediate byte
		case r >= 0x40 && r <= 0x7e:
			c.st = cleanText
		default:
			// not a valid CSI: drop what was consumed, keep this rune
			c.st = cleanText
			c.step(b, r)
		}
	case cleanString:
		switch r {
		case 0x07, 0x9c:
			c.st = cleanText
		case 0x1b:
			c.st = cleanStringEsc
		case '\n':
			c.st = cleanText
			b.WriteRune(r)
		}
	case cleanStringEsc:
		if r == '\\' {
			c.st = cleanText
			return
		}
		c.st = cleanEsc
		c.step(b, r)
	default:
		switch {
		case r == '\n' || r == '\t':
			b.WriteRune(r)
		case r == 0x1b:
			c.st = cleanEsc
		case r == 0x9b:
			c.st = cleanCSI
		case r == 0x90 || r == 0x98 || r == 0x9d || r == 0x9e || r == 0x9f:
			c.st = cleanString
		case isControl(r):
			// dropped
		default:
			b.WriteRune(r)
		}
	}
}

// isControl reports C0, DEL and C1 controls (newline and tab included; the
// caller handles those first).
func isControl(r rune) bool {
	return r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f)
}

// isPlain reports whether s is valid UTF-8 without any control other than
// newline and tab, the common case that needs no copy.
func isPlain(s string) bool {
	for i := 0; i < len(s); i++ {
		b := s[i]
		if b < 0x20 && b != '\n' && b != '\t' || b == 0x7f {
			return false
		}
		if b >= 0x80 {
			return plainRunes(s[i:])
		}
	}
	return true
}

func plainRunes(s string) bool {
	for _, r := range s {
		if r == utf8.RuneError || (r != '\n' && r != '\t' && isControl(r)) {
			return false
		}
	}
	return true
}

// oneLine cleans s and folds it to one line: every run of whitespace that
// contains a line break becomes one space, other runs stay as they are, and
// the ends are trimmed. Used for summaries, error messages and other
// one-line items.
func oneLine(s string) string {
	var c cleaner
	s = strings.TrimSpace(c.clean(s))
	if !strings.Contains(s, "\n") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		if !isSpace(s[i]) {
			b.WriteByte(s[i])
			i++
			continue
		}
		j := i
		for j < len(s) && isSpace(s[j]) {
			j++
		}
		if run := s[i:j]; strings.Contains(run, "\n") {
			b.WriteByte(' ')
		} else {
			b.WriteString(run)
		}
		i = j
	}
	return b.String()
}

func isSpace(b byte) bool { return b == ' ' || b == '\t' || b == '\n' }

// firstLine returns the first non-blank line of s, cleaned, and how many
// more non-blank lines follow.
func firstLine(s string) (string, int) {
	var c cleaner
	var first string
	more := 0
	for _, l := range strings.Split(c.clean(s), "\n") {
		l = strings.TrimSpace(strings.ReplaceAll(l, "\t", " "))
		if l == "" {
			continue
		}
		if first == "" {
			first = l
		} else {
			more++
		}
	}
	return first, more
}
