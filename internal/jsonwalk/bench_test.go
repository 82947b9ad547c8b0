package jsonwalk_test

import (
	"testing"

	"github.com/evcap/evcap/internal/jsonwalk"
	"github.com/tidwall/gjson"
)

func benchLines(b *testing.B) ([][]byte, int64) {
	ls := corpusLines(b, 1<<20)
	var n int64
	for _, l := range ls {
		n += int64(len(l))
	}
	return ls, n
}

// BenchmarkWalk walks every real corpus line, visiting every string's
// decoded text.
func BenchmarkWalk(b *testing.B) {
	ls, n := benchLines(b)
	var w jsonwalk.Walker
	sum := 0
	v := jsonwalk.VisitorFunc(func(_ *jsonwalk.Walker, t *jsonwalk.Token) error {
		if t.Kind == jsonwalk.String || t.Kind == jsonwalk.Key {
			sum += len(t.Text())
		}
		return nil
	})
	b.SetBytes(n)
	b.ReportAllocs()
	for b.Loop() {
		for _, l := range ls {
			_, _, _ = w.Walk(l, v)
		}
	}
	_ = sum
}

// BenchmarkGjsonValid is the validation pass redact ran before its own
// walker, for scale.
func BenchmarkGjsonValid(b *testing.B) {
	ls, n := benchLines(b)
	b.SetBytes(n)
	for b.Loop() {
		for _, l := range ls {
			_ = gjson.ValidBytes(l)
		}
	}
}
