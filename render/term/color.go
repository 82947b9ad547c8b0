package term

import (
	"fmt"
)

// ColorMode is the user's choice for --color.
type ColorMode string

// The accepted --color values.
const (
	ColorAuto   ColorMode = "auto"
	ColorAlways ColorMode = "always"
	ColorNever  ColorMode = "never"
)

// ColorEnabled decides whether output gets colour, from the --color value,
// the environment (getenv, usually os.Getenv) and whether the output is a
// terminal. "always" and "never" win over everything; "auto" (or "") gives
// colour only on a terminal, and not when NO_COLOR is set to a non-empty
// value (https://no-color.org) or TERM is "dumb". An unknown mode is an error
// so a typo in a flag is not silently taken as "auto".
func ColorEnabled(mode ColorMode, getenv func(string) string, isTTY bool) (bool, error) {
	switch mode {
	case ColorAlways:
		return true, nil
	case ColorNever:
		return false, nil
	case ColorAuto, "":
		if getenv != nil && (getenv("NO_COLOR") != "" || getenv("TERM") == "dumb") {
			return false, nil
		}
		return isTTY, nil
	default:
		return false, fmt.Errorf("colour mode %q: want auto, always or never", string(mode))
	}
}
