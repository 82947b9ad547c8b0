package scan

import "strings"

// pemState follows a private key across lines: after a BEGIN … PRIVATE
// KEY line (or a redaction token that may stand for one), lines of base64
// are the key's body, up to the END line. A redactor that replaced only the
// BEGIN line leaves the body behind; this is how the gate sees it.
type pemState struct {
	in bool
	// idle counts lines inside a block that were not body lines; a block
	// that shows no body for a while is over.
	idle int
}

// feed takes a piece of text (one or more lines) and reports whether it
// holds a body line of an open private key.
func (p *pemState) feed(text string) bool {
	if !p.in && !pemMarker(text) {
		return false
	}
	found := false
	for len(text) > 0 {
		line := text
		if i := strings.IndexByte(text, '\n'); i >= 0 {
			line, text = text[:i], text[i+1:]
		} else {
			text = ""
		}
		line = strings.TrimSpace(strings.TrimSuffix(line, "\\n"))
		switch {
		case strings.Contains(line, "-----END") && strings.Contains(line, "PRIVATE KEY"):
			p.in = false
		case strings.Contains(line, "-----BEGIN") && strings.Contains(line, "PRIVATE KEY"),
			strings.HasSuffix(line, "[REDACTED:private-key-block]"):
			p.in, p.idle = true, 0
		case p.in && keyBody(line):
			found = true
			p.idle = 0
		case p.in:
			p.idle++
			if p.idle > 4 {
				p.in = false
			}
		}
	}
	return found
}

// keyBody reports a line of a PEM or OpenSSH key body: 16 or more base64
// characters and nothing else.
func keyBody(line string) bool {
	if len(line) < 16 {
		return false
	}
	for i := 0; i < len(line); i++ {
		c := line[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '+' || c == '/' || c == '=') {
			return false
		}
	}
	return true
}

// pemMarker reports text that may open a private key (feed ignores any
// other text outside one).
func pemMarker(text string) bool {
	return strings.Contains(text, "PRIVATE KEY") || strings.Contains(text, "[REDACTED:private-key")
}
