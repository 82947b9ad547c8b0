package textcut

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestSummary(t *testing.T) {
	long := strings.Repeat("é", 200)
	for _, c := range []struct {
		reason, in, want, wantNoControls string
	}{
		{"white space runs fold to one space and ends are trimmed", "  ls\n\t -la  ", "ls -la", "ls -la"},
		{"control characters stay unless told otherwise", "a\x1b[31mb", "a\x1b[31mb", "a [31mb"},
		{"exactly the limit is not cut", strings.Repeat("x", SummaryRunes), strings.Repeat("x", SummaryRunes), strings.Repeat("x", SummaryRunes)},
		{"over the limit keeps limit-1 runes and marks the cut", long, strings.Repeat("é", SummaryRunes-1) + "…", strings.Repeat("é", SummaryRunes-1) + "…"},
	} {
		if got := Summary(c.in); got != c.want {
			t.Errorf("Summary: %s: got %q, want %q", c.reason, got, c.want)
		}
		if got := SummaryNoControls(c.in); got != c.wantNoControls {
			t.Errorf("SummaryNoControls: %s: got %q, want %q", c.reason, got, c.wantNoControls)
		}
	}
}

func TestRunesKeepsInvalidBytes(t *testing.T) {
	got := Runes("\xff\xfeabc", 3)
	if got != "\xff\xfe…" {
		t.Errorf("got %q, want the two invalid bytes kept and a cut mark", got)
	}
}

func TestOutput(t *testing.T) {
	short := "hello"
	if got := Output(short); got != short {
		t.Errorf("short output changed: %q", got)
	}
	// A 3-byte rune straddling the limit must be dropped whole.
	s := strings.Repeat("a", OutputBytes-1) + "€" + "tail"
	got := Output(s)
	if len(got) != OutputBytes-1 || !utf8.ValidString(got) {
		t.Errorf("got %d bytes (valid %v), want %d valid bytes", len(got), utf8.ValidString(got), OutputBytes-1)
	}
	exact := strings.Repeat("b", OutputBytes+10)
	if got := Output(exact); len(got) != OutputBytes {
		t.Errorf("ASCII cut to %d bytes, want %d", len(got), OutputBytes)
	}
}
