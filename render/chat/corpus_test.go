package chat

import (
	"bytes"
	"testing"
	"time"

	"github.com/evcap/evcap/internal/corpustest"
	"github.com/sebdah/goldie/v2"
)

// linePace is the synthetic time between two native lines of a capture:
// the raw corpus files carry no reliable clock, so line n happens at
// n×linePace. It is short enough that the rate limiter has work to do.
const linePace = 150 * time.Millisecond

// renderCapture normalizes a capture line by line and feeds each event to a
// Message at its line's synthetic time; the run closes one pace after the
// last line.
func renderCapture(t *testing.T, file string) []Op {
	t.Helper()
	n := corpustest.NewNormalizer(t, corpustest.Provider(file))
	m := New(Options{})
	var ops []Op
	var last int64
	corpustest.EachLine(t, file, func(ref int64, line []byte) {
		last = ref
		at := t0.Add(time.Duration(ref) * linePace)
		for _, e := range n.Line(ref, line) {
			ops = append(ops, m.Handle(at, e)...)
		}
	})
	end := t0.Add(time.Duration(last+1) * linePace)
	for _, e := range n.End() {
		ops = append(ops, m.Handle(end, e)...)
	}
	return append(ops, m.Close(end)...)
}

func TestCorpusGoldens(t *testing.T) {
	g := goldie.New(t, goldie.WithFixtureDir("testdata/corpus"), goldie.WithNameSuffix(".chat.golden"))
	for _, file := range corpustest.NativeFiles(t) {
		name := corpustest.Provider(file) + "/" + corpustest.Base(file)
		t.Run(name, func(t *testing.T) {
			ops := renderCapture(t, file)
			checkOps(t, ops, DefaultInterval)
			var b bytes.Buffer
			if err := WriteJSONL(&b, ops); err != nil {
				t.Fatal(err)
			}
			g.Assert(t, name, b.Bytes())
		})
	}
}

// checkOps asserts the invariants of any operation sequence: one send
// first, edits at least an interval apart, times not going backwards, and
// exactly one final op, last.
func checkOps(t *testing.T, ops []Op, interval time.Duration) {
	t.Helper()
	if len(ops) == 0 || ops[0].Kind != OpSend {
		t.Fatalf("first op is not a send: %v", brief(ops))
	}
	var lastEdit time.Duration = -1
	for i, op := range ops {
		if i > 0 && op.Kind == OpSend {
			t.Errorf("op %d: a second send", i)
		}
		if i > 0 && op.At < ops[i-1].At {
			t.Errorf("op %d: time goes back (%v after %v)", i, op.At, ops[i-1].At)
		}
		if op.Kind == OpEdit {
			if lastEdit >= 0 && op.At-lastEdit < interval {
				t.Errorf("op %d: edit %v after the previous one, less than %v", i, op.At-lastEdit, interval)
			}
			lastEdit = op.At
		}
		if op.Final != (i == len(ops)-1) {
			t.Errorf("op %d: final=%v, want the last op (only) final", i, op.Final)
		}
	}
}
