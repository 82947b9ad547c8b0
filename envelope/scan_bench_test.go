package envelope

import (
	"bytes"
	"os"
	"testing"
)

// BenchmarkScanRecordFile runs the one-pass scan over every line of the
// capture EVCAP_BENCH_CAPTURE names (held in memory, so no reading is
// measured); it is skipped without one.
func BenchmarkScanRecordFile(b *testing.B) {
	name := os.Getenv("EVCAP_BENCH_CAPTURE")
	if name == "" {
		b.Skip("EVCAP_BENCH_CAPTURE not set")
	}
	data, err := os.ReadFile(name)
	if err != nil {
		b.Fatal(err)
	}
	ls := bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	var sc lineScanner
	var rec Record
	for b.Loop() {
		for _, l := range ls {
			if !sc.scanRecord(l, &rec, true) {
				b.Fatalf("slow line: %.100s", l)
			}
		}
	}
}
