package source

import (
	"strings"
	"testing"

	"github.com/evcap/evcap/normalize/detect"
)

func TestChoose(t *testing.T) {
	known := []string{"claude", "codex", "gemini", "opencode"}
	claudeLines := detect.Match{Provider: "claude", Format: detect.FormatStreamJSON}
	cases := []struct {
		reason string
		ev     Evidence
		flag   string
		want   string // provider, or a piece of the error
		fails  bool
	}{
		{"auto takes the recorded provider", Evidence{Recorded: "claude", Detected: claudeLines, DetectedOK: true}, "auto", "claude", false},
		{"auto takes the detected one for raw output", Evidence{Detected: claudeLines, DetectedOK: true, NativeLines: 1}, "auto", "claude", false},
		{"a recorded provider contradicting the lines", Evidence{Name: "x", Recorded: "codex", Detected: claudeLines, DetectedOK: true}, "auto", "says provider codex", true},
		{"an explicit name contradicting the lines", Evidence{Name: "x", Detected: claudeLines, DetectedOK: true}, "gemini", "looks like claude output", true},
		{"an explicit name contradicting the capture", Evidence{Name: "x", Recorded: "codex"}, "gemini", "is a capture of codex", true},
		{"an unknown name", Evidence{}, "cursor", "unknown provider", true},
		{"nothing fits", Evidence{Name: "x", NativeLines: 3}, "auto", "fit no provider's format", true},
		{"no lines at all", Evidence{Name: "x"}, "auto", "has no native lines", true},
	}
	for _, c := range cases {
		got, err := Choose(c.ev, c.flag, known)
		switch {
		case c.fails && err == nil:
			t.Errorf("%s: Choose = %q, want an error", c.reason, got)
		case c.fails && !strings.Contains(err.Error(), c.want):
			t.Errorf("%s: error %q, want it to say %q", c.reason, err, c.want)
		case !c.fails && (err != nil || got != c.want):
			t.Errorf("%s: Choose = %q, %v; want %q", c.reason, got, err, c.want)
		}
	}
}
