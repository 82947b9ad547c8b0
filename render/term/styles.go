package term

import (
	"strings"

	"github.com/muesli/termenv"
)

// style is the SGR sequence that starts one kind of output ("" for none).
// The renderer keeps a style open along a line and resets it at the line's
// end, at a style change and when a block closes, so output is the same
// however the text was split into events, and no style leaks onto the next
// line (GitHub's log viewer, for one, styles each line on its own).
type style struct{ open string }

// sgrReset ends every style.
const sgrReset = termenv.CSI + termenv.ResetSeq + "m"

// styles holds the style of each kind of output.
type styles struct {
	header, thinkingHead, thinking, text       style
	tool, ok, toolErr, usage, warn, fail, done style
}

// newStyles builds the styles with termenv. With colour off they use the
// Ascii profile, which styles nothing.
func newStyles(color bool) styles {
	p := termenv.Ascii
	if color {
		p = termenv.ANSI
	}
	s := p.String()
	return styles{
		header:       opener(s.Bold()),
		thinkingHead: opener(s.Faint().Italic()),
		thinking:     opener(s.Faint().Italic()),
		text:         opener(s),
		tool:         opener(s.Foreground(p.Color("6"))),
		ok:           opener(s.Faint()),
		toolErr:      opener(s.Foreground(p.Color("1"))),
		usage:        opener(s.Faint()),
		warn:         opener(s.Foreground(p.Color("3"))),
		fail:         opener(s.Bold().Foreground(p.Color("1"))),
		done:         opener(s.Bold().Foreground(p.Color("2"))),
	}
}

// opener extracts the opening sequence of a termenv style: termenv only
// offers "styled text", so it styles a marker and keeps what precedes it.
func opener(st termenv.Style) style {
	const marker = "\x00"
	open, _, _ := strings.Cut(st.Styled(marker), marker)
	return style{open: open}
}
