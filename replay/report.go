package replay

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/evcap/evcap/envelope"
	"github.com/evcap/evcap/fixtures"
)

// Mismatch is a replay whose output differs from what was expected. Its
// Error text is the report for people; the fields are for programs.
type Mismatch struct {
	// Check says what was compared: "native → golden/normalized.golden",
	// "rechunk seed 7: term output".
	Check string
	// Sequence is the capture sequence number of the first diverging
	// record: the normalized_out or legacy_out record when the expected
	// side comes from the capture, otherwise the native line the diverging
	// event came from. 0 when nothing identifies it (output of Close).
	Sequence  int64
	Stage     envelope.Stage
	EventType string
	// Native holds the native_in records behind the divergence (cause).
	Native []fixtures.Event
	// Line is the 1-based line of the output where the first difference is.
	Line int
	// Diff is a short diff around the first difference: "  " context,
	// "- " expected, "+ " got.
	Diff string
	// Want and Got are the first differing output line on each side ("" at
	// the end of an output).
	Want, Got string
	// Update is the command that accepts the new output, when the change
	// is intended ("" when there is no golden to update).
	Update string
}

func (m *Mismatch) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "replay mismatch (%s) at output line %d\n", m.Check, m.Line)
	if m.Sequence > 0 {
		fmt.Fprintf(&b, "  first diverging record: sequence %d, stage %s, eventType %s\n", m.Sequence, m.Stage, m.EventType)
	} else if m.EventType != "" {
		fmt.Fprintf(&b, "  first diverging item: stage %s, eventType %s (no record sequence)\n", m.Stage, m.EventType)
	} else {
		b.WriteString("  first divergence: output written at the end of the stream\n")
	}
	for _, n := range m.Native {
		fmt.Fprintf(&b, "  from native_in %d (%s): %s\n", n.Sequence, n.EventType, clip(string(n.Payload), 160))
	}
	b.WriteString("  expected (-) vs got (+):\n")
	for _, l := range strings.Split(strings.TrimSuffix(m.Diff, "\n"), "\n") {
		b.WriteString("    " + l + "\n")
	}
	if m.Update != "" {
		fmt.Fprintf(&b, "  if the change is intended, update the golden with:\n    %s\n", m.Update)
	}
	return b.String()
}

// origin is what a piece of output came from.
type origin struct {
	seq       int64
	stage     envelope.Stage
	eventType string
	cause     []int64
}

// span attributes output bytes [start, end) to an origin.
type span struct {
	start, end int
	who        *origin
}

// text is an output with its attribution.
type text struct {
	out   []byte
	spans []span
}

func (t *text) add(b []byte, who *origin) {
	start := len(t.out)
	t.out = append(t.out, b...)
	if who != nil && len(b) > 0 {
		t.spans = append(t.spans, span{start, len(t.out), who})
	}
}

// at returns the origin of the byte at offset off (or of the last output
// before it, when off is past the end).
func (t *text) at(off int) *origin {
	var last *origin
	for _, s := range t.spans {
		if off < s.end {
			if off >= s.start {
				return s.who
			}
			break
		}
		last = s.who
	}
	if off >= len(t.out) {
		return last
	}
	return nil
}

// compareText returns nil when want and got are equal, or a Mismatch
// pointing at the first difference. The expected side's origin is
// preferred (it names the recorded record); the got side's is the fallback.
func compareText(fx *fixtures.Fixture, check string, want, got *text, update string) *Mismatch {
	if bytes.Equal(want.out, got.out) {
		return nil
	}
	p := 0
	for p < len(want.out) && p < len(got.out) && want.out[p] == got.out[p] {
		p++
	}
	who := want.at(p)
	if who == nil || (p >= len(want.out) && len(want.spans) == 0) {
		who = got.at(p)
	}
	line := bytes.Count(want.out[:p], []byte("\n"))
	m := &Mismatch{Check: check, Line: line + 1, Diff: lineDiff(want.out, got.out, line), Update: update,
		Want: lineAt(want.out, line), Got: lineAt(got.out, line)}
	if who != nil {
		m.Sequence, m.Stage, m.EventType = who.seq, who.stage, who.eventType
		if m.Sequence == 0 && len(who.cause) > 0 {
			m.Sequence, m.Stage = who.cause[len(who.cause)-1], envelope.StageNativeIn
		}
		m.Native = natives(fx, who.cause)
	}
	return m
}

func natives(fx *fixtures.Fixture, cause []int64) []fixtures.Event {
	want := map[int64]bool{}
	for _, c := range cause {
		want[c] = true
	}
	var out []fixtures.Event
	for _, e := range fx.Events {
		if want[e.Sequence] && e.Stage == envelope.StageNativeIn {
			out = append(out, e)
		}
	}
	const most = 5
	if len(out) > most {
		out = out[len(out)-most:]
	}
	return out
}

// lineDiff shows up to two lines of context before the first differing
// line, then up to four expected and four got lines from there. Long lines
// are cut to a window around their first differing column, so a one-word
// change in a 10 KiB line is visible.
func lineDiff(want, got []byte, first int) string {
	w := splitLines(want)
	g := splitLines(got)
	var b strings.Builder
	for i := max(0, first-2); i < first && i < len(w); i++ {
		b.WriteString("  " + clip(w[i], 120) + "\n")
	}
	col := 0
	if first < len(w) && first < len(g) {
		for col < len(w[first]) && col < len(g[first]) && w[first][col] == g[first][col] {
			col++
		}
	}
	show := func(sign string, ls []string) {
		if first >= len(ls) {
			b.WriteString(sign + "(end of output)\n")
			return
		}
		for i := first; i < len(ls) && i < first+4; i++ {
			l := ls[i]
			if i == first {
				l = window(l, col)
			} else {
				l = clip(l, 120)
			}
			b.WriteString(sign + l + "\n")
		}
	}
	show("- ", w)
	show("+ ", g)
	return b.String()
}

func lineAt(b []byte, i int) string {
	ls := splitLines(b)
	if i < len(ls) {
		return ls[i]
	}
	return ""
}

func splitLines(b []byte) []string {
	s := string(b)
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

// window cuts a long line to about 120 bytes around col, marking cuts with
// "…"; control characters are shown as Go escapes so the diff stays one line.
func window(l string, col int) string {
	start, end := 0, len(l)
	if len(l) > 120 {
		start = max(0, col-40)
		end = min(len(l), start+120)
	}
	out := visible(l[start:end])
	if start > 0 {
		out = "…" + out
	}
	if end < len(l) {
		out += "…"
	}
	return out
}

func clip(s string, n int) string {
	if len(s) <= n {
		return visible(s)
	}
	return visible(s[:n]) + "…"
}

func visible(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
