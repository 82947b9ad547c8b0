package claude_test

import (
	"testing"

	"github.com/evcap/evcap/bench/gen"
	"github.com/evcap/evcap/event"
	"github.com/evcap/evcap/normalize/claude"
)

// BenchmarkNormalize feeds a generated claude run (8 MB, long tool outputs)
// through a fresh normalizer per iteration; b.SetBytes makes -bench report
// MB/s, -benchmem the allocations per run.
func BenchmarkNormalize(b *testing.B) {
	benchNormalize(b, (*claude.Normalizer).Line)
}

// BenchmarkNormalizeOwned is BenchmarkNormalize's work as evcap normalize's
// normalizing goroutine does it: every line already validated and handed
// over with LineOwned.
func BenchmarkNormalizeOwned(b *testing.B) {
	benchNormalize(b, (*claude.Normalizer).LineOwned)
}

func benchNormalize(b *testing.B, line func(*claude.Normalizer, int64, []byte) []event.Event) {
	ls, st, err := gen.Lines(gen.Options{Provider: "claude", Size: 8 << 20, Seed: 1, SecretEvery: 20})
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(st.Bytes)
	b.ReportAllocs()
	events := 0
	for b.Loop() {
		n := claude.New()
		for i, l := range ls {
			events += len(line(n, int64(i+1), l))
		}
		events += len(n.End())
	}
	if events == 0 {
		b.Fatal("no events")
	}
}
