package replay

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/sergi/go-diff/diffmatchpatch"
)

// The diffs in reports come from github.com/sergi/go-diff (Myers' algorithm,
// which finds a longest common subsequence): in line mode for which lines
// changed, then character mode inside a changed line for which span
// changed. The layout around them is ours and stays the same from release
// to release: "  " unchanged (each shown once), "- " expected, "+ " got,
// and under a changed got line a "  ^^^" line marking the changed span.

// DiffOptions shape a LineDiff.
type DiffOptions struct {
	// Context is how many unchanged lines are kept around each change
	// (default 2).
	Context int
	// MaxLines caps the diff's length; what is cut is counted in a last
	// line (0: no cap).
	MaxLines int
	// Width cuts longer lines to a window around their changed span
	// (default 120).
	Width int
}

// LineDiff returns a line diff of want and got, each split at newlines:
// unchanged lines shown once (only Context of them around a change, a
// "  …" line for the ones left out), removed lines as "- ", added ones as
// "+ ", and when a removed line is followed by its replacement, a marker
// line under it pointing at the characters that changed. Control
// characters are shown as Go escapes so that every diff line is one line.
// It returns "" when want and got are equal.
func LineDiff(want, got string, o DiffOptions) string {
	if want == got {
		return ""
	}
	if o.Context <= 0 {
		o.Context = 2
	}
	if o.Width <= 0 {
		o.Width = 120
	}
	dmp := diffmatchpatch.New()
	a, b, table := dmp.DiffLinesToRunes(want, got)
	diffs := dmp.DiffCharsToLines(dmp.DiffMainRunes(a, b, false), table)
	type op struct {
		kind diffmatchpatch.Operation
		line string
	}
	var ops []op
	for _, d := range diffs {
		for _, l := range splitKeep(d.Text) {
			ops = append(ops, op{d.Type, l})
		}
	}
	// Keep unchanged lines within Context of a change.
	keep := make([]bool, len(ops))
	for i, p := range ops {
		if p.kind == diffmatchpatch.DiffEqual {
			continue
		}
		for j := max(0, i-o.Context); j <= min(len(ops)-1, i+o.Context); j++ {
			keep[j] = true
		}
	}
	var out []string
	skipped := false
	for i := 0; i < len(ops); i++ {
		p := ops[i]
		if !keep[i] {
			if !skipped {
				out = append(out, "  …")
			}
			skipped = true
			continue
		}
		skipped = false
		switch p.kind {
		case diffmatchpatch.DiffEqual:
			out = append(out, "  "+clip(p.line, o.Width))
		case diffmatchpatch.DiffInsert:
			out = append(out, "+ "+clip(p.line, o.Width))
		case diffmatchpatch.DiffDelete:
			// A run of deletes followed by as many inserts: pair them up
			// and mark the changed span of each pair.
			j := i
			for j < len(ops) && ops[j].kind == diffmatchpatch.DiffDelete {
				j++
			}
			k := j
			for k < len(ops) && ops[k].kind == diffmatchpatch.DiffInsert {
				k++
			}
			dels, ins := ops[i:j], ops[j:k]
			if len(dels) == len(ins) {
				for n := range dels {
					out = append(out, changedPair(dmp, dels[n].line, ins[n].line, o.Width)...)
				}
			} else {
				for _, d := range dels {
					out = append(out, "- "+clip(d.line, o.Width))
				}
				for _, a := range ins {
					out = append(out, "+ "+clip(a.line, o.Width))
				}
			}
			i = k - 1
		}
	}
	if o.MaxLines > 0 && len(out) > o.MaxLines {
		n := len(out) - o.MaxLines
		out = append(out[:o.MaxLines], "  … ("+strconv.Itoa(n)+" more diff lines)")
	}
	return strings.Join(out, "\n") + "\n"
}

// changedPair shows a replaced line: "- " old, "+ " new and a marker line
// under the span of new that differs (a single "^" where text was only
// removed). Long lines are cut to the same window on both sides.
func changedPair(dmp *diffmatchpatch.DiffMatchPatch, w, g string, width int) []string {
	ds := dmp.DiffCleanupSemantic(dmp.DiffMain(w, g, false))
	// The changed span of g: from its first to its last non-equal byte.
	start, end, pos := -1, -1, 0
	for _, d := range ds {
		switch d.Type {
		case diffmatchpatch.DiffEqual:
			pos += len(d.Text)
		case diffmatchpatch.DiffInsert:
			if start < 0 {
				start = pos
			}
			pos += len(d.Text)
			end = pos
		case diffmatchpatch.DiffDelete:
			if start < 0 {
				start = pos
			}
			end = max(end, pos)
		}
	}
	if start < 0 {
		start, end = 0, 0
	}
	from := 0
	if len(w) > width || len(g) > width {
		from = max(0, start-width/3)
		for from > 0 && !utf8.RuneStart(g[from]) {
			from--
		}
	}
	show := func(l string) (string, int) {
		if from > len(l) {
			return "…", 1
		}
		s := l[from:]
		cut := false
		if len(s) > width {
			n := width
			for n > 0 && !utf8.RuneStart(s[n]) {
				n--
			}
			s, cut = s[:n], true
		}
		v := visible(s)
		pre := ""
		if from > 0 {
			pre = "…"
		}
		if cut {
			v += "…"
		}
		return pre + v, utf8.RuneCountInString(pre)
	}
	ws, _ := show(w)
	gs, lead := show(g)
	// Columns in runes of the visible form, relative to the window.
	col := lead + utf8.RuneCountInString(visible(g[from:start]))
	span := 1
	if end > start {
		stop := min(end, len(g))
		if stop-from > width {
			stop = from + width
		}
		if stop > start {
			span = max(1, utf8.RuneCountInString(visible(g[start:stop])))
		}
	}
	return []string{"- " + ws, "+ " + gs, "  " + strings.Repeat(" ", col) + strings.Repeat("^", span)}
}

// splitKeep splits a diff chunk of whole lines into lines (without their
// newlines).
func splitKeep(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}
