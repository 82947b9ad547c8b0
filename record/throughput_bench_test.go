//go:build unix

package record

import (
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/evcap/evcap/redact"
)

// BenchmarkStreamFile records the file named by $EVCAP_BENCH_INPUT (a raw
// provider run, such as bench/cmd/gencorpus makes) as evcap record --stdin
// does, with the default redaction, and reports MB/s and CPU per MB.
//
//	EVCAP_BENCH_INPUT=run.jsonl go test ./record -run '^$' -bench StreamFile -benchtime 1x
func BenchmarkStreamFile(b *testing.B) {
	in := os.Getenv("EVCAP_BENCH_INPUT")
	if in == "" {
		b.Skip("set EVCAP_BENCH_INPUT to a raw provider run")
	}
	red, err := redact.New(redact.Options{Home: "/home/someone", Project: "/work/project"})
	if err != nil {
		b.Fatal(err)
	}
	st, err := os.Stat(in)
	if err != nil {
		b.Fatal(err)
	}
	var cpu, wall time.Duration
	for range b.N {
		f, err := os.Open(in)
		if err != nil {
			b.Fatal(err)
		}
		out := filepath.Join(b.TempDir(), "c.jsonl")
		before, _ := selfCPU()
		start := time.Now()
		res, err := Stream(f, Options{NewNormalizer: allNormalizers, Output: out, Redactor: red, Console: io.Discard})
		wall += time.Since(start)
		after, _ := selfCPU()
		cpu += after - before
		f.Close()
		if err != nil {
			b.Fatal(err)
		}
		_ = res
	}
	mb := float64(st.Size()) / 1e6 * float64(b.N)
	b.ReportMetric(mb/wall.Seconds(), "MB/s")
	b.ReportMetric(cpu.Seconds()/mb*1000, "cpu-ms/MB")
}
