package scan

import (
	"context"
	"os"
	"runtime/debug"
	"testing"
)

// BenchmarkScanFile scans the capture named by EVCAP_SCAN_BENCH (a
// capture made by bench/gen and evcap record, say), with the prefilter and
// without: go test -run X -bench ScanFile -cpuprofile cpu.out ./scan.
func BenchmarkScanFile(b *testing.B) {
	path := os.Getenv("EVCAP_SCAN_BENCH")
	if path == "" {
		b.Skip("EVCAP_SCAN_BENCH names no capture")
	}
	fi, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name string
		off  bool
	}{{"prefilter", false}, {"all-rules", true}} {
		b.Run(c.name, func(b *testing.B) {
			if c.off && os.Getenv("EVCAP_SCAN_BENCH_ALL") == "" {
				b.Skip("EVCAP_SCAN_BENCH_ALL unset")
			}
			s, err := New(Options{})
			if err != nil {
				b.Fatal(err)
			}
			s.noPrefilter = c.off
			b.SetBytes(fi.Size())
			for b.Loop() {
				f, err := os.Open(path)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := s.Read(f, path, KindCapture); err != nil {
					b.Fatal(err)
				}
				f.Close()
			}
		})
	}
}

// BenchmarkScanTally is what `evcap scan FILE` does: TallyContext with a
// context, under the command's soft memory limit (cmd/evcap root.go), with
// the command's default home and temporary paths.
func BenchmarkScanTally(b *testing.B) {
	path := os.Getenv("EVCAP_SCAN_BENCH")
	if path == "" {
		b.Skip("EVCAP_SCAN_BENCH names no capture")
	}
	fi, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(40 << 20))
	// The paths the command looks for by default.
	home, _ := os.UserHomeDir()
	s, err := New(Options{Home: home, Temp: []string{os.TempDir()}})
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(fi.Size())
	for b.Loop() {
		if _, err := s.TallyContext(context.Background(), []string{path}, NewTally(DefaultShown)); err != nil {
			b.Fatal(err)
		}
	}
}
