package redact_test

import (
	"bytes"
	"testing"

	"github.com/evcap/evcap/bench/gen"
	"github.com/evcap/evcap/internal/jsonwalk"
	"github.com/evcap/evcap/internal/lines"
	"github.com/evcap/evcap/redact"
)

// generatedLines is the redactor and the lines of an 8 MiB generated
// Claude run (long tool outputs, machine paths, a planted secret every 20
// turns) that the benchmarks below share, and the run's size.
func generatedLines(b *testing.B) (*redact.Redactor, [][]byte, int64) {
	b.Helper()
	var raw bytes.Buffer
	if _, err := gen.Write(&raw, gen.Options{Provider: "claude", Size: 8 << 20, Seed: 1, SecretEvery: 20}); err != nil {
		b.Fatal(err)
	}
	red, err := redact.New(redact.Options{Home: "/home/dev", Project: "/home/dev/src/app", Temp: []string{"/tmp"}})
	if err != nil {
		b.Fatal(err)
	}
	var ls [][]byte
	lr := lines.NewReader(bytes.NewReader(raw.Bytes()))
	for {
		l, err := lr.Next()
		if err != nil {
			break
		}
		ls = append(ls, bytes.Clone(l))
	}
	return red, ls, int64(raw.Len())
}

// BenchmarkLineGenerated redacts every line of a generated Claude run with
// long tool outputs, machine paths and a planted secret every 20 turns, as
// evcap record does while recording.
func BenchmarkLineGenerated(b *testing.B) {
	red, ls, size := generatedLines(b)
	b.SetBytes(size)
	b.ReportAllocs()
	for b.Loop() {
		for _, l := range ls {
			red.Line(l)
		}
	}
}

// BenchmarkJSONVisit compares, on the lines of a generated Claude run,
// redacting and then rewriting in a second walk of the output (what
// sanitize did before) with doing both in one walk (JSONVisit). The
// rewrite here only looks at every string, as sanitize's mostly does.
func BenchmarkJSONVisit(b *testing.B) {
	red, ls, size := generatedLines(b)
	n := 0
	var txt []byte
	look := jsonwalk.VisitorFunc(func(_ *jsonwalk.Walker, t *jsonwalk.Token) error {
		if t.Kind == jsonwalk.String {
			txt = t.AppendSpliced(txt[:0])
			n += len(txt)
		}
		return nil
	})
	b.Run("two-walks", func(b *testing.B) {
		b.SetBytes(size)
		b.ReportAllocs()
		var w jsonwalk.Walker
		for b.Loop() {
			for _, l := range ls {
				if out, _, err := red.JSON(l); err == nil {
					_, _, _ = w.Walk(out, look)
				}
			}
		}
	})
	b.Run("one-walk", func(b *testing.B) {
		b.SetBytes(size)
		b.ReportAllocs()
		var w jsonwalk.Walker
		for b.Loop() {
			for _, l := range ls {
				_, _, _, _ = red.JSONVisit(&w, l, look)
			}
		}
	})
}
