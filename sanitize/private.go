package sanitize

import "strings"

// privateKeys name the string fields that hold free text: streamed and
// completed text and thinking, prompts, tool outputs and final answers, in
// every provider's shape and in normalized events.
var privateKeys = map[string]bool{
	"text": true, "thinking": true, "content": true, "result": true, "output": true,
	"aggregated_output": true, "stdout": true, "stderr": true, "delta": true,
}

// placeholder is the rune free text is replaced with.
const placeholder = 'x'

// privatize replaces every rune of s that is not whitespace with the
// placeholder, so lengths in runes, line breaks, indentation and the
// boundaries between streamed chunks survive. It is its own fixed point.
func privatize(s string) (string, bool) {
	changed := false
	for _, r := range s {
		if r != placeholder && !isSpace(r) {
			changed = true
			break
		}
	}
	if !changed {
		return s, false
	}
	var sb strings.Builder
	sb.Grow(len(s))
	for _, r := range s {
		if isSpace(r) {
			sb.WriteRune(r)
		} else {
			sb.WriteRune(placeholder)
		}
	}
	return sb.String(), true
}

func isSpace(r rune) bool { return r == ' ' || r == '\t' || r == '\n' || r == '\r' }
