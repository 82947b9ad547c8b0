package sanitize_test

import (
	"os"
	"slices"
	"testing"
	"time"

	"github.com/evcap/evcap/internal/lines"
	"github.com/evcap/evcap/redact"
	"github.com/evcap/evcap/sanitize"
)

// BenchmarkLineRedactorLag measures how long evcap record's redaction
// holds streamed text back, on the corpus capture with the longest
// streamed answer (claude long-text-partial, 2-9 character deltas and a
// planted key): for each line, how many later lines arrive before it is
// released (lag-lines p50/p99), the share released by its own Push
// (immediate-%), and the redaction time per line. At speed 1 a line's
// render lag is the redaction time plus the time until the lines it waits
// for arrive, so lag-lines 0 means it renders as soon as it is redacted.
func BenchmarkLineRedactorLag(b *testing.B) {
	f, err := os.Open(corpusDir + "/claude/long-text-partial.stdout.jsonl")
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	var in [][]byte
	lr0 := lines.NewReader(f)
	for {
		l, err := lr0.Next()
		if len(l) > 0 {
			in = append(in, append([]byte(nil), l...))
		}
		if err != nil {
			break
		}
	}
	red, err := redact.New(redact.Options{Home: "/root", Project: "/root/projects/demo", Temp: []string{"/tmp/xyz"}})
	if err != nil {
		b.Fatal(err)
	}
	var lags []int
	var perLine time.Duration
	for b.Loop() {
		lags = lags[:0]
		lr := sanitize.NewLineRedactor(red, sanitize.LineOptions{})
		released := 0
		t0 := time.Now()
		for i, l := range in {
			for range lr.Push(l) {
				lags = append(lags, i-released)
				released++
			}
		}
		for range lr.Flush() {
			lags = append(lags, len(in)-released)
			released++
		}
		perLine = time.Since(t0) / time.Duration(len(in))
	}
	slices.Sort(lags)
	immediate := 0
	for _, l := range lags {
		if l == 0 {
			immediate++
		}
	}
	b.ReportMetric(float64(lags[len(lags)/2]), "lag-lines-p50")
	b.ReportMetric(float64(lags[len(lags)*99/100]), "lag-lines-p99")
	b.ReportMetric(100*float64(immediate)/float64(len(lags)), "immediate-%")
	b.ReportMetric(float64(perLine.Nanoseconds()), "ns/line")
}
