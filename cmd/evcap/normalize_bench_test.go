package main

import (
	"context"
	"io"
	"os"
	"testing"
)

// BenchmarkNormalizeCmd runs the normalize command's own loop (reading,
// detection, normalizing, encoding, buffered writing to io.Discard) on the
// file EVCAP_BENCH_IN names, e.g. a run made by bench/cmd/gencorpus; it is
// skipped without one. With -cpuprofile it is the profile of `evcap normalize`.
func BenchmarkNormalizeCmd(b *testing.B) {
	name := os.Getenv("EVCAP_BENCH_IN")
	if name == "" {
		b.Skip("EVCAP_BENCH_IN not set")
	}
	st, err := os.Stat(name)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(st.Size())
	b.ReportAllocs()
	for b.Loop() {
		if err := runNormalize(context.Background(), streams{in: nil, out: io.Discard, err: io.Discard}, name, "auto", false, normOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}
