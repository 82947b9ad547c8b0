package record

import (
	"regexp"
	"strings"

	"github.com/evcap/evcap/redact"
)

// secretName matches flag and variable names whose value is a credential.
var secretName = regexp.MustCompile(`(?i)(api[-_]?key|token|secret|passw(or)?d|credential|auth|bearer|cookie|private[-_]?key)`)

const argvMask = "[REDACTED:argv]"

// RedactArgv returns argv with credentials removed, for capture.start: the
// value of a flag named like a credential (--api-key VALUE, --token=VALUE),
// the value of a NAME=VALUE argument whose NAME looks like one
// (ANTHROPIC_API_KEY=sk-…), and whatever the redactor's rules find in any
// argument (a key pasted into a prompt). red may be nil.
func RedactArgv(argv []string, red *redact.Redactor) []string {
	out := make([]string, len(argv))
	maskNext := false
	for i, a := range argv {
		switch {
		case maskNext && !strings.HasPrefix(a, "-"):
			out[i] = argvMask
			maskNext = false
			continue
		case strings.HasPrefix(a, "-"):
			maskNext = false
			name, _, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
			if secretName.MatchString(name) {
				if hasValue {
					out[i] = a[:strings.IndexByte(a, '=')+1] + argvMask
					continue
				}
				maskNext = true
			}
		default:
			if name, _, ok := strings.Cut(a, "="); ok && isEnvName(name) && secretName.MatchString(name) {
				out[i] = name + "=" + argvMask
				continue
			}
		}
		if red != nil {
			b, _ := red.Text([]byte(a))
			a = string(b)
		}
		out[i] = a
	}
	return out
}

func isEnvName(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		if !(r == '_' || r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || i > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}
