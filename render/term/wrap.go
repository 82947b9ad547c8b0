package term

import (
	"strings"

	"github.com/rivo/uniseg"
)

// wrapper breaks streamed text into lines of at most width columns, on word
// boundaries. It is fed pieces of any size and holds back only the word that
// is still being written, since whether it fits is unknown until it ends.
//
// A break replaces the run of spaces where it happens with one newline;
// nothing else in the text changes. A word wider than the line is not cut
// (URLs and paths stay copyable); it gets a line of its own. Widths are
// display columns (uniseg), so CJK and emoji count as two.
//
// With width 0 the wrapper passes text through untouched.
type wrapper struct {
	width  int
	col    int    // columns already on the current output line
	spaces string // whitespace seen after the last word, not yet written
	word   strings.Builder
}

// reset forgets the held word and space and starts at column col.
func (w *wrapper) reset(col int) {
	w.col = col
	w.spaces = ""
	w.word.Reset()
}

// write feeds s and returns the text that can be output now.
func (w *wrapper) write(s string) string {
	if w.width <= 0 {
		return s
	}
	var out strings.Builder
	for _, r := range s {
		switch r {
		case '\n':
			w.flushWord(&out)
			out.WriteString(w.spaces)
			out.WriteByte('\n')
			w.spaces = ""
			w.col = 0
		case ' ', '\t':
			w.flushWord(&out)
			w.spaces += string(r)
		default:
			w.word.WriteRune(r)
		}
	}
	return out.String()
}

// flush returns everything still held (at the end of a block). Trailing
// spaces are kept if they fit on the line and dropped if they would spill
// onto the next one.
func (w *wrapper) flush() string {
	if w.width <= 0 {
		return ""
	}
	var out strings.Builder
	w.flushWord(&out)
	if w.spaces != "" && w.col+spaceWidth(w.col, w.spaces) <= w.width {
		out.WriteString(w.spaces)
	}
	w.reset(0)
	return out.String()
}

func (w *wrapper) flushWord(out *strings.Builder) {
	if w.word.Len() == 0 {
		return
	}
	word := w.word.String()
	w.word.Reset()
	ww := uniseg.StringWidth(word)
	sw := spaceWidth(w.col, w.spaces)
	if w.col > 0 && w.col+sw+ww > w.width {
		out.WriteByte('\n')
		w.col = 0
	} else {
		out.WriteString(w.spaces)
		w.col += sw
	}
	w.spaces = ""
	out.WriteString(word)
	w.col += ww
}

// spaceWidth is how many columns spaces take when written at column col
// (tabs stop every 8 columns).
func spaceWidth(col int, spaces string) int {
	c := col
	for _, r := range spaces {
		if r == '\t' {
			c += 8 - c%8
		} else {
			c++
		}
	}
	return c - col
}
