package source

import (
	"fmt"
	"slices"
	"strings"

	"github.com/evcap/evcap/normalize/detect"
)

// Evidence is what an input says about the agent CLI that wrote it.
type Evidence struct {
	// Name is the input's name, for messages.
	Name string
	// Recorded is the provider the capture's records (or the fixture)
	// name; empty for raw output.
	Recorded string
	// Detected is normalize/detect's verdict on the first native lines;
	// DetectedOK is false when no line fitted a provider's format.
	Detected   detect.Match
	DetectedOK bool
	// NativeLines is how many native lines the verdict looked at.
	NativeLines int
}

// Choose settles which provider's normalizer reads the input. flag is
// "auto" or a provider name; known lists the providers the caller has
// normalizers for. An explicit name that contradicts the recorded provider
// or the detected format is an error, as is "auto" on input no known
// provider's format fits.
func Choose(ev Evidence, flag string, known []string) (string, error) {
	recordedKnown := slices.Contains(known, ev.Recorded)
	if flag != "auto" {
		if !slices.Contains(known, flag) {
			return "", fmt.Errorf("unknown provider %q (known: %s)", flag, strings.Join(known, ", "))
		}
		if ev.DetectedOK && ev.Detected.Provider != flag {
			return "", fmt.Errorf("%s looks like %s output (%s), not %s; use --provider %s or auto",
				ev.Name, ev.Detected.Provider, ev.Detected.Format, flag, ev.Detected.Provider)
		}
		if recordedKnown && ev.Recorded != flag {
			return "", fmt.Errorf("%s is a capture of %s, not %s; use --provider %s or auto",
				ev.Name, ev.Recorded, flag, ev.Recorded)
		}
		return flag, nil
	}
	if recordedKnown {
		if ev.DetectedOK && ev.Detected.Provider != ev.Recorded {
			return "", fmt.Errorf("%s says provider %s but its native lines look like %s (%s); use --provider to choose",
				ev.Name, ev.Recorded, ev.Detected.Provider, ev.Detected.Format)
		}
		return ev.Recorded, nil
	}
	if ev.DetectedOK {
		return ev.Detected.Provider, nil
	}
	what := "its first lines fit no provider's format"
	if ev.NativeLines == 0 {
		what = "it has no native lines"
	}
	return "", fmt.Errorf("cannot tell which agent CLI wrote %s: %s; name it with --provider (%s)",
		ev.Name, what, strings.Join(known, ", "))
}
