package replay

import (
	"bytes"
	"strings"

	"github.com/evcap/evcap/envelope"
)

// CompareDriven compares what code under test wrote when fed lines split
// by d.Chunking with want (a golden's bytes). It returns nil when they are
// equal and the code did not fail, else a *Mismatch that names the
// chunking, the first diverging output line, and the native lines fed
// since the last matching output line was written up to the diverging one
// (the ones that produced it, or were being read when output stopped).
// check says what was compared; update is the command that accepts the new
// output, shown in the report.
func CompareDriven(check string, want []byte, d *Driven, lines []NativeLine, update string) *Mismatch {
	if bytes.Equal(want, d.Output) && d.Err == nil {
		return nil
	}
	w, g := splitLines(want), splitLines(d.Output)
	k := 0
	for k < len(w) && k < len(g) && w[k] == g[k] {
		k++
	}
	if k == len(w) && k == len(g) && !bytes.Equal(want, d.Output) {
		// Equal lines, different bytes: only the final newline differs.
		k = max(0, len(w)-1)
	}
	m := &Mismatch{Check: check, Line: k + 1, Diff: lineDiff(want, d.Output, k),
		Want: lineAt(want, k), Got: lineAt(d.Output, k), Update: update, Chunking: d.Chunking.String()}
	if d.Err != nil {
		m.Exit = d.Err.Error()
	}
	if len(d.Stderr) > 0 {
		m.Stderr = lastLines(d.Stderr, 12)
	}
	m.Fed = fedLines(lines, fedRange(d, k))
	if n := len(m.Fed); n > 0 {
		last := m.Fed[n-1]
		m.Sequence, m.Stage, m.EventType = last.Sequence, envelope.StageNativeIn, last.EventType
	}
	return m
}

// fedRange is what was fed from the end of output line k-1 (the last one
// that matched) to the end of line k, or to what was read last when the
// output has no line k.
func fedRange(d *Driven, k int) Fed {
	from := 0
	if k > 0 && k-1 < len(d.LineFed) {
		from = d.LineFed[k-1].Last
	}
	if k < len(d.LineFed) {
		if k == 0 {
			from = min(from, d.LineFed[0].First)
		}
		return Fed{from, d.LineFed[k].Last}
	}
	return Fed{min(from, d.ErrFed.Last), d.ErrFed.Last}
}

// fedLines returns the lines of r, at most five: the first two and the
// last three of a longer range.
func fedLines(lines []NativeLine, r Fed) []NativeLine {
	var in []NativeLine
	for _, l := range lines {
		if l.Index >= r.First && l.Index <= r.Last {
			in = append(in, l)
		}
	}
	if len(in) > 5 {
		in = append(in[:2:2], in[len(in)-3:]...)
	}
	return in
}

func lastLines(b []byte, n int) string {
	ls := splitLines(b)
	if len(ls) > n {
		ls = ls[len(ls)-n:]
	}
	return strings.Join(ls, "\n") + "\n"
}
