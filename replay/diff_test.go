package replay_test

import (
	"strings"
	"testing"

	"github.com/evcap/evcap/replay"
)

func TestLineDiff(t *testing.T) {
	for _, c := range []struct {
		name, want, got, diff, reason string
	}{
		{"equal", "a\nb\n", "a\nb\n", "", "no diff for equal texts"},
		{"changed word", "a\nthe quick fox\nc\n", "a\nthe slow fox\nc\n",
			"  a\n- the quick fox\n+ the slow fox\n      ^^^^\n  c\n", "a replaced line is paired and its changed span marked"},
		{"inserted", "a\nb\nc\nd\ne\nf\n", "a\nb\nc\nX\nd\ne\nf\n",
			"  …\n  b\n  c\n+ X\n  d\n  e\n  …\n", "only two unchanged lines each side, the rest elided once"},
		{"removed", "a\nb\nc\n", "a\nc\n", "  a\n- b\n  c\n", "a removed line is not paired with anything"},
		{"deleted span", "keep this text\n", "keep text\n", "- keep this text\n+ keep text\n       ^\n", "text only removed is marked with one caret"},
		{"control chars", "a\tb\n", "a\tc\n", "- a\\tb\n+ a\\tc\n     ^\n", "tabs shown as escapes, columns counted on what is shown"},
	} {
		got := replay.LineDiff(c.want, c.got, replay.DiffOptions{})
		if got != c.diff {
			t.Errorf("%s (%s):\ngot:\n%s\nwant:\n%s", c.name, c.reason, got, c.diff)
		}
	}
	long := strings.Repeat("x", 500)
	d := replay.LineDiff(long+"A"+long+"\n", long+"B"+long+"\n", replay.DiffOptions{})
	ls := strings.Split(strings.TrimSuffix(d, "\n"), "\n")
	if len(ls) != 3 || len([]rune(ls[0])) > 130 || !strings.Contains(ls[0], "A") || !strings.Contains(ls[1], "B") {
		t.Fatalf("long line not cut to a window around the change:\n%s", d)
	}
	if i, j := strings.IndexRune(ls[1], 'B'), strings.Index(ls[2], "^"); len([]rune(ls[1][:i])) != len([]rune(ls[2][:j])) {
		t.Errorf("caret at column %d, change at %d:\n%s", j, i, d)
	}
}
