package codex

import (
	"strings"
)

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
