package redact

import (
	"bufio"
	"bytes"
	"os"
	"testing"
)

// BenchmarkCorpusLines redacts, in order, every line of the real Claude
// partial-message outputs in testdata/corpus (many deltas of a few
// words): the per-line cost record and sanitize pay on such a stream.
func BenchmarkCorpusLines(b *testing.B) {
	r := testRedactor(b)
	var ls [][]byte
	var size int64
	for _, name := range []string{"long-text-partial", "tools-partial"} {
		data, err := os.ReadFile("../testdata/corpus/claude/" + name + ".stdout.jsonl")
		if err != nil {
			b.Fatal(err)
		}
		sc := bufio.NewScanner(bytes.NewReader(data))
		for sc.Scan() {
			ls = append(ls, bytes.Clone(sc.Bytes()))
			size += int64(len(sc.Bytes()))
		}
	}
	b.SetBytes(size)
	b.ReportAllocs()
	for b.Loop() {
		for _, l := range ls {
			if _, _, err := r.JSON(l); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(ls)), "ns/line")
}
