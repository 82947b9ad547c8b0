// Package wrap folds long chat lines for narrow clients. It imports
// nothing of evcap and defines no flags; its golden test follows the
// module's convention (EVCAP_UPDATE=1 rewrites goldens).
package wrap

import "strings"

// Lines folds s at spaces so that no line is longer than width runes
// (a word longer than width gets a line of its own).
func Lines(s string, width int) []string {
	var out []string
	var cur []rune
	for _, w := range strings.Fields(s) {
		r := []rune(w)
		if len(cur) > 0 && len(cur)+1+len(r) > width {
			out = append(out, string(cur))
			cur = nil
		}
		if len(cur) > 0 {
			cur = append(cur, ' ')
		}
		cur = append(cur, r...)
	}
	if len(cur) > 0 {
		out = append(out, string(cur))
	}
	return out
}
