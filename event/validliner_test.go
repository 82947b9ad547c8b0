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
// event.ValidLiner and that LineValid gives exactly Line's events, in
// lockstep over the real corpus and a generated run: each line that
// gjson.ValidBytes accepts goes to LineValid on one normalizer and to Line
// on the other, every other line to Line on both.
func TestValidLiner(t *testing.T) {
	for _, d := range providers.All() {
		t.Run(d.Name, func(t *testing.T) {
			if _, ok := d.Normalizer(provider.Options{}).(event.ValidLiner); !ok {
				t.Fatalf("%s's normalizer does not implement event.ValidLiner", d.Name)
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
					lr := lines.NewReader(bytes.NewReader(in))
					for {
						line, err := lr.Next()
						if err != nil && len(line) == 0 {
							break
						}
						want := plain.Line(lr.Line(), line)
						var got []event.Event
						if gjson.ValidBytes(line) {
							got = pre.LineValid(lr.Line(), line)
							valid++
						} else {
							got = pre.Line(lr.Line(), line)
						}
						same(t, lr.Line(), got, want)
						compared += len(want)
					}
					same(t, -1, pre.End(), plain.End())
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
