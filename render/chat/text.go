package chat

import (
	"strings"

	"github.com/rivo/uniseg"
)

// clean removes control characters other than newline and tab. Chat
// clients do not interpret terminal sequences, but stray control bytes
// have no business in a message either.
func clean(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '\n' || r == '\t' {
			return r
		}
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f) {
			return -1
		}
		return r
	}, s)
}

// oneLine cleans s and folds it to one line of single-spaced words.
func oneLine(s string) string {
	return strings.Join(strings.Fields(clean(s)), " ")
}

// clip cuts s to at most max characters (grapheme clusters, so an emoji
// or an accented letter is never split), ending with "…" when cut.
func clip(s string, max int) string {
	if uniseg.GraphemeClusterCount(s) <= max {
		return s
	}
	var b strings.Builder
	g := uniseg.NewGraphemes(s)
	for n := 0; n < max-1 && g.Next(); n++ {
		b.WriteString(g.Str())
	}
	return strings.TrimRight(b.String(), " ") + "…"
}
