package event_test

import (
	"bytes"
	"encoding/json"
	"os"
	"testing"

	"github.com/evcap/evcap/bench/gen"
	"github.com/evcap/evcap/event"
	"github.com/evcap/evcap/internal/lines"
	"github.com/evcap/evcap/provider"
	"github.com/evcap/evcap/providers"
	"github.com/tidwall/gjson"
)

// TestValidLiner checks that every provider's stream normalizer implements
// event.ValidLiner and event.OwnedLiner and that LineValid and LineOwned
// give exactly Line's events, in lockstep over the real corpus and a
// generated run: each line that gjson.ValidBytes accepts goes to LineValid
// on one normalizer, to LineOwned (a fresh copy, never changed) on another
// and to Line on the third, every other line to Line on all three. Line's
// and LineValid's line is a scratch buffer overwritten after each call, so
// a normalizer that kept a string of it uncopied (in an event or in its
// state) would give other events, then or later.
func TestValidLiner(t *testing.T) {
	for _, d := range providers.All() {
		t.Run(d.Name, func(t *testing.T) {
			if _, ok := d.Normalizer(provider.Options{}).(event.OwnedLiner); !ok {
				t.Fatalf("%s's normalizer does not implement event.OwnedLiner", d.Name)
			}
			var gr bytes.Buffer
			if _, err := gen.Write(&gr, gen.Options{Provider: d.Name, Size: 1 << 20, Seed: 5}); err != nil {
				t.Fatal(err)
			}
			inputs := [][]byte{gr.Bytes()}
			for _, f := range corpusFiles(t, d.Name) {
				b, err := os.ReadFile(f)
				if err != nil {
					t.Fatal(err)
				}
				inputs = append(inputs, b)
			}
			valid, compared := 0, 0
			for _, in := range inputs {
				for _, o := range []provider.Options{{}, {CumulativeDeltas: true}} {
					plain, pre := d.Normalizer(o), d.Normalizer(o).(event.ValidLiner)
					own := d.Normalizer(o).(event.OwnedLiner)
					lr := lines.NewReader(bytes.NewReader(in))
					var scratch []byte
					for {
						line, err := lr.Next()
						if err != nil && len(line) == 0 {
							break
						}
						scratch = append(scratch[:0], line...)
						want := plain.Line(lr.Line(), scratch)
						for i := range scratch {
							scratch[i] = '#'
						}
						var got, owned []event.Event
						// LineValid's line, too, is overwritten once the call returns.
						scratch = append(scratch[:0], line...)
						if gjson.ValidBytes(line) {
							got = pre.LineValid(lr.Line(), scratch)
							owned = own.LineOwned(lr.Line(), bytes.Clone(line))
							valid++
						} else {
							got = pre.Line(lr.Line(), scratch)
							owned = own.Line(lr.Line(), line)
						}
						for i := range scratch {
							scratch[i] = '#'
						}
						same(t, lr.Line(), got, want)
						same(t, lr.Line(), owned, want)
						compared += len(want)
					}
					end := plain.End()
					same(t, -1, pre.End(), end)
					same(t, -1, own.End(), end)
				}
			}
			if valid < 50 || compared < 50 {
				t.Fatalf("only %d valid lines, %d events compared", valid, compared)
			}
		})
	}
}

func same(t *testing.T, ref int64, got, want []event.Event) {
	t.Helper()
	g, _ := json.Marshal(got)
	w, _ := json.Marshal(want)
	if !bytes.Equal(g, w) {
		t.Fatalf("line %d: LineValid gave\n%s\nLine gave\n%s", ref, g, w)
	}
}
