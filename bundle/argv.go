package bundle

import (
	"regexp"
	"strings"
)

// credentialName matches flag names whose value is a credential. Captures
// made by evcap record already mask these; a capture written by an
// integration may not have, and the manifest must not be the place where a
// token survives because no redaction rule knew its shape.
var credentialName = regexp.MustCompile(`(?i)(api[-_]?key|token|secret|passw(or)?d|credential|auth|bearer|cookie|private[-_]?key)`)

const flagMask = "[REDACTED:flag]"

// maskFlags returns argv with the values of credential-named flags
// (--api-key VALUE, --token=VALUE) and NAME=VALUE arguments with such a
// name replaced; every other argument is kept as the sanitizer left it.
func maskFlags(argv []string) []string {
	out := make([]string, len(argv))
	maskNext := false
	for i, a := range argv {
		out[i] = a
		if strings.HasPrefix(a, "-") {
			maskNext = false
			name, _, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
			if credentialName.MatchString(name) {
				if hasValue {
					out[i] = a[:strings.IndexByte(a, '=')+1] + flagMask
				} else {
					maskNext = true
				}
			}
			continue
		}
		if maskNext {
			out[i] = flagMask
			maskNext = false
			continue
		}
		if name, _, ok := strings.Cut(a, "="); ok && !strings.ContainsAny(name, " /") && credentialName.MatchString(name) {
			out[i] = name + "=" + flagMask
		}
	}
	return out
}
