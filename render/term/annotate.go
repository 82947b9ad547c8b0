package term

import "strings"

// Workflow commands are how a GitHub Actions step talks to the runner: a
// line of the log that starts with "::" (after leading whitespace) is read
// as a command. The renderer emits two kinds on purpose (notice, error) and
// must make sure nothing else in its output can be read as one.

// annotation returns a workflow command line "::cmd::data\n". data is
// folded to one clean line and escaped as the runner expects (% CR LF).
func annotation(cmd, data string) string {
	return "::" + cmd + "::" + escapeData(oneLine(data)) + "\n"
}

// escapeData escapes a workflow command's data part: %, CR and LF become
// %25, %0D and %0A, so the message cannot end the command line early.
func escapeData(s string) string {
	if !strings.ContainsAny(s, "%\r\n") {
		return s
	}
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

// zwsp is inserted between the two colons of a line-leading "::" in GitHub
// Actions mode. It is invisible in the log, keeps the text readable as
// written, and the line no longer starts with "::", so the runner does not
// treat it as a command.
const zwsp = "\u200b"

// cmdGuard watches the start of each output line in GitHub Actions mode and
// breaks a leading "::". It works on streamed output, so a "::" split across
// two writes is caught: a first ':' at line start is held back until the
// next character shows whether a second one follows.
type cmdGuard struct {
	midLine bool // past the leading whitespace of the current line
	held    bool // a line-leading ':' is held back
}

// filter returns s with every line-leading "::" broken.
func (g *cmdGuard) filter(s string) string {
	if s == "" {
		return ""
	}
	var b strings.Builder
	b.Grow(len(s) + 4)
	for _, r := range s {
		switch {
		case g.held:
			g.held = false
			b.WriteByte(':')
			if r == ':' {
				b.WriteString(zwsp)
			}
			b.WriteRune(r)
			g.midLine = r != '\n'
		case r == '\n':
			b.WriteRune(r)
			g.midLine = false
		case g.midLine:
			b.WriteRune(r)
		case r == ' ' || r == '\t':
			b.WriteRune(r)
		case r == ':':
			g.held = true
		default:
			b.WriteRune(r)
			g.midLine = true
		}
	}
	return b.String()
}

// release returns the held ':' if any (at the end of a block, when no more
// text will follow on this line).
func (g *cmdGuard) release() string {
	if g.held {
		g.held = false
		g.midLine = true
		return ":"
	}
	return ""
}
