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
	Check string `json:"check"`
	// Sequence is the capture sequence number of the first diverging
	// record: the normalized_out or legacy_out record when the expected
	// side comes from the capture, otherwise the native line the diverging
	// event came from. 0 when nothing identifies it (output of Close).
	Sequence  int64          `json:"sequence,omitempty"`
	Stage     envelope.Stage `json:"stage,omitempty"`
	EventType string         `json:"eventType,omitempty"`
	// Native holds the native_in records behind the divergence (cause).
	Native []fixtures.Event `json:"native,omitempty"`
	// Line is the 1-based line of the output where the first difference is.
	Line int `json:"line"`
	// Diff is a short diff around the first difference: "  " context,
	// "- " expected, "+ " got.
	Diff string `json:"diff"`
	// Want and Got are the first differing output line on each side ("" at
	// the end of an output).
	Want string `json:"want"`
	Got  string `json:"got"`
	// Update is the command that accepts the new output, when the change
	// is intended ("" when there is no golden to update).
	Update string `json:"update,omitempty"`
	// Chunking is how the native stream was split when it was fed to the
	// code under test (stream and exec replays; "" otherwise).
	Chunking string `json:"chunking,omitempty"`
	// Fed holds the native lines being fed when the first diverging output
	// line was written (stream and exec replays): the chunk or chunks fed
	// since output last settled, at most five lines.
	Fed []NativeLine `json:"fed,omitempty"`
	// Exit says how an exec replay's command ended when it did not exit 0
	// ("exit status 1"), and Stderr holds the last lines it wrote there.
	Exit   string `json:"exit,omitempty"`
	Stderr string `json:"stderr,omitempty"`
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
	if m.Chunking != "" {
		fmt.Fprintf(&b, "  chunking: %s\n", m.Chunking)
	}
	for _, n := range m.Fed {
		fmt.Fprintf(&b, "  being fed: native line %d (sequence %d): %s\n", n.Index+1, n.Sequence, clip(string(n.Line), 160))
	}
	if m.Exit != "" {
		fmt.Fprintf(&b, "  stopped with: %s\n", m.Exit)
	}
	if m.Stderr != "" {
		b.WriteString("  its stderr ends with:\n")
		for _, l := range splitLines([]byte(m.Stderr)) {
			b.WriteString("    " + clip(l, 160) + "\n")
		}
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

// lineDiff is the diff of a report: two lines of context before the
// first differing line and up to four lines of each side from there,
// compared with LineDiff (so the streaming comparer, which keeps only those
// lines, gives the same text as the in-memory one).
func lineDiff(want, got []byte, first int) string {
	w, g := splitLines(want), splitLines(got)
	from := max(0, first-2)
	part := func(ls []string) string {
		if from >= len(ls) {
			return ""
		}
		return strings.Join(ls[from:min(len(ls), first+4)], "\n") + "\n"
	}
	d := LineDiff(part(w), part(g), DiffOptions{Context: 2})
	if first >= len(w) {
		d += "- (end of output)\n"
	} else if first >= len(g) {
		d += "+ (end of output)\n"
	}
	return d
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
