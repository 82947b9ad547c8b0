package corpustest

import (
	"slices"
	"strings"
	"testing"

	"github.com/evcap/evcap/provider"
	"github.com/tidwall/gjson"
)

// DeltaLine is what a provider's Deltas tracker said about one line.
type DeltaLine struct {
	Ref    int64
	Line   []byte
	Deltas []provider.Delta // copied: valid after the next line
	Ended  []string
}

// Deltas streams file through a fresh tracker of d and returns what it
// said about every line. It fails the test when a tracker breaks the
// contract every provider keeps: a Path that does not lead to a JSON
// string, a block that ends without being open, a block identity used
// again after its block ended, a block ending on the line that carries
// one of its pieces, or a piece whose Text is not the string at its Path.
// When the tracker is a provider.ValidDeltas, a second tracker is given
// every valid JSON line through LineValid (the others through Line), and
// what the two say must be the same.
func Deltas(t testing.TB, d provider.Descriptor, file string) []DeltaLine {
	t.Helper()
	tr := d.Deltas()
	vt, _ := d.Deltas().(provider.ValidDeltas)
	var out []DeltaLine
	open, ended := map[string]bool{}, map[string]bool{}
	EachLine(t, file, func(ref int64, line []byte) {
		ds := slices.Clone(tr.Line(line))
		es := slices.Clone(tr.Ended())
		for i := range ds {
			ds[i].Text = strings.Clone(ds[i].Text) // line is reused
		}
		if vt != nil {
			var vs []provider.Delta
			if gjson.ValidBytes(line) {
				vs = vt.LineValid(line)
			} else {
				vs = vt.Line(line)
			}
			if !slices.EqualFunc(vs, ds, sameDelta) || !slices.Equal(vt.Ended(), es) {
				t.Errorf("%s:%d: LineValid gave %+v, ended %q; Line gave %+v, ended %q", file, ref, vs, vt.Ended(), ds, es)
			}
		}
		for _, id := range es {
			if !open[id] {
				t.Errorf("%s:%d: block %q ended but was not open", file, ref, id)
			}
			delete(open, id)
			ended[id] = true
		}
		for _, x := range ds {
			if ended[x.Block] {
				t.Errorf("%s:%d: block %q has a piece after it ended", file, ref, x.Block)
			}
			if slices.Contains(es, x.Block) {
				t.Errorf("%s:%d: block %q ends on a line that carries its piece", file, ref, x.Block)
			}
			open[x.Block] = true
			if x.Offset < 0 || x.Offset > len(line) {
				t.Fatalf("%s:%d: offset %d outside the line", file, ref, x.Offset)
			}
			_, _, text, ok := x.Locate(line)
			if !ok {
				t.Errorf("%s:%d: path %v at offset %d does not name a string", file, ref, x.Path, x.Offset)
			}
			if !x.Start && x.Text != text {
				t.Errorf("%s:%d: piece's Text %q, its path %v holds %q", file, ref, x.Text, x.Path, text)
			}
		}
		out = append(out, DeltaLine{Ref: ref, Line: slices.Clone(line), Deltas: ds, Ended: es})
	})
	return out
}

// sameDelta reports whether a and b say the same.
func sameDelta(a, b provider.Delta) bool {
	return a.Block == b.Block && slices.Equal(a.Path, b.Path) && a.Offset == b.Offset &&
		a.Kind == b.Kind && a.Start == b.Start && a.Text == b.Text
}

// PathString writes a Delta path as a gjson path.
func PathString(path []string) string { return provider.GJSONPath(path) }

// Pieces counts the pieces (not Start ones) the lines carry, by kind.
func Pieces(ls []DeltaLine) map[provider.DeltaKind]int {
	n := map[provider.DeltaKind]int{}
	for _, l := range ls {
		for _, d := range l.Deltas {
			if !d.Start {
				n[d.Kind]++
			}
		}
	}
	return n
}
