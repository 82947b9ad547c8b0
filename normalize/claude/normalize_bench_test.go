package claude_test

import (
	"bytes"
	"testing"

	"github.com/evcap/evcap/bench/gen"
	"github.com/evcap/evcap/internal/lines"
	"github.com/evcap/evcap/normalize/claude"
)

// BenchmarkNormalize feeds a generated claude run (8 MB, long tool outputs)
// through a fresh normalizer per iteration; b.SetBytes makes -bench report
// MB/s, -benchmem the allocations per run.
func BenchmarkNormalize(b *testing.B) {
	var raw bytes.Buffer
	if _, err := gen.Write(&raw, gen.Options{Provider: "claude", Size: 8 << 20, Seed: 1, SecretEvery: 20}); err != nil {
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
	b.SetBytes(int64(raw.Len()))
	b.ReportAllocs()
	events := 0
	for b.Loop() {
		n := claude.New()
		for i, l := range ls {
			events += len(n.Line(int64(i+1), l))
		}
		events += len(n.End())
	}
	if events == 0 {
		b.Fatal("no events")
	}
}

// BenchmarkNormalizeOwned is BenchmarkNormalize's work as evcap normalize's
// normalizing goroutine does it: every line already validated and handed
// over with LineOwned (a copy per line, made outside the timing).
func BenchmarkNormalizeOwned(b *testing.B) {
	var raw bytes.Buffer
	if _, err := gen.Write(&raw, gen.Options{Provider: "claude", Size: 8 << 20, Seed: 1, SecretEvery: 20}); err != nil {
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
	b.SetBytes(int64(raw.Len()))
	b.ReportAllocs()
	events := 0
	for b.Loop() {
		n := claude.New()
		for i, l := range ls {
			events += len(n.LineOwned(int64(i+1), l))
		}
		events += len(n.End())
	}
	if events == 0 {
		b.Fatal("no events")
	}
}
