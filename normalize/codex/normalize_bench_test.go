package codex_test

import (
	"testing"

	"github.com/evcap/evcap/bench/gen"
	"github.com/evcap/evcap/normalize/codex"
)

// BenchmarkNormalize feeds a generated codex run (8 MB, long tool outputs)
// through a fresh normalizer per iteration; b.SetBytes makes -bench report
// MB/s, -benchmem the allocations per run.
func BenchmarkNormalize(b *testing.B) {
	ls, st, err := gen.Lines(gen.Options{Provider: "codex", Size: 8 << 20, Seed: 1, SecretEvery: 20})
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(st.Bytes)
	b.ReportAllocs()
	events := 0
	for b.Loop() {
		n := codex.New()
		for i, l := range ls {
			events += len(n.Line(int64(i+1), l))
		}
		events += len(n.End())
	}
	if events == 0 {
		b.Fatal("no events")
	}
}
