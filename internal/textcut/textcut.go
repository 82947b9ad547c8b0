// Package textcut cuts provider text down to what a normalized event keeps
// for display: a tool summary of one line of at most SummaryRunes runes,
// and a tool output of at most OutputBytes bytes. Every normalizer uses it,
// so that the same input gives the same summary whichever provider printed
// it, and a renderer can rely on one limit.
//
// It only cuts and folds; it does not decide which text is safe to show
// (the normalizers' tool tables do), and it does not escape anything for a
// terminal or a chat client (the renderers do).
package textcut

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// SummaryRunes is the longest tool summary, in runes: one terminal line.
const SummaryRunes = 120

// OutputBytes is how many bytes of a tool output an event keeps.
const OutputBytes = 2048

// Summary folds s to one line, every run of white space (newlines
// included) becoming one space, and cuts it to SummaryRunes runes.
func Summary(s string) string {
	return Runes(strings.Join(strings.Fields(s), " "), SummaryRunes)
}

// SummaryNoControls is Summary where control characters separate words
// like white space, so none of them reaches the summary.
func SummaryNoControls(s string) string {
	return Runes(strings.Join(strings.FieldsFunc(s, func(r rune) bool {
		return unicode.IsSpace(r) || unicode.IsControl(r)
	}), " "), SummaryRunes)
}

// Runes cuts s to at most max runes; a cut string ends with "…" (which
// counts as one of the max). The bytes kept are s's own, invalid UTF-8
// included (each invalid byte counts as one rune).
func Runes(s string, max int) string {
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	n := 0
	for i := range s {
		if n == max-1 {
			return s[:i] + "…"
		}
		n++
	}
	return s
}

// Output cuts s to at most OutputBytes bytes, never inside a UTF-8
// sequence. Callers report len(s) beside it as the whole output's size.
func Output(s string) string {
	if len(s) <= OutputBytes {
		return s
	}
	i := OutputBytes
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i]
}
