package codex

import (
	"strings"
	"unicode/utf8"
)

// maxSummary is the longest tool summary, in runes. One terminal line.
const maxSummary = 120

// shellWrappers are the prefixes codex puts before a model's shell command.
var shellWrappers = []string{"/bin/bash -lc ", "bash -lc ", "/bin/zsh -lc ", "zsh -lc ", "/bin/sh -c ", "sh -c "}

// unwrapCommand removes the login-shell wrapper codex reports commands with
// ("/bin/bash -lc 'cat README.md'") and undoes its single quoting.
func unwrapCommand(cmd string) string {
	for _, w := range shellWrappers {
		if rest, ok := strings.CutPrefix(cmd, w); ok {
			cmd = rest
			break
		}
	}
	if len(cmd) >= 2 && cmd[0] == '\'' && cmd[len(cmd)-1] == '\'' {
		inner := cmd[1 : len(cmd)-1]
		// Inside single quotes, a quote is written '\'' (close, escaped
		// quote, reopen); anything else lone would mean it is not one
		// quoted word, so keep the text as it is.
		unq := strings.ReplaceAll(inner, `'\''`, "\x00")
		if !strings.Contains(unq, "'") {
			cmd = strings.ReplaceAll(unq, "\x00", "'")
		}
	}
	return cmd
}

// oneLine collapses all whitespace runs (newlines included) to single spaces
// and cuts the result to maxSummary runes, marking a cut with "…".
func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= maxSummary {
		return s
	}
	n := 0
	for i := range s {
		if n == maxSummary-1 {
			return s[:i] + "…"
		}
		n++
	}
	return s
}

// maxOutput is how many bytes of a tool result are kept for display.
const maxOutput = 2048

// cutOutput cuts s to at most maxOutput bytes on a UTF-8 boundary and
// returns it with the length of the whole.
func cutOutput(s string) (string, int) {
	if len(s) <= maxOutput {
		return s, len(s)
	}
	i := maxOutput
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i], len(s)
}
