package corpustest

import (
	"slices"
	"testing"

	"github.com/evcap/evcap/provider"
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
// again after its block ended, or a block ending on the line that carries
// one of its pieces.
func Deltas(t testing.TB, d provider.Descriptor, file string) []DeltaLine {
	t.Helper()
	tr := d.Deltas()
	var out []DeltaLine
	open, ended := map[string]bool{}, map[string]bool{}
	EachLine(t, file, func(ref int64, line []byte) {
		ds := slices.Clone(tr.Line(line))
		es := slices.Clone(tr.Ended())
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
			if _, _, _, ok := x.Locate(line); !ok {
				t.Errorf("%s:%d: path %v at offset %d does not name a string", file, ref, x.Path, x.Offset)
			}
		}
		out = append(out, DeltaLine{Ref: ref, Line: slices.Clone(line), Deltas: ds, Ended: es})
	})
	return out
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
