package replay_test

import (
	"os"
	"testing"

	"github.com/evcap/evcap/normalize/claude"
	"github.com/evcap/evcap/replay"
)

// BenchmarkRunCaptureFile replays the Claude capture EVCAP_BENCH_CAPTURE
// names (e.g. one recorded from a bench/gen run) in native mode against
// its recorded events, the streaming path of evcap replay CAPTURE --mode
// native; it is skipped without one. With -cpuprofile it is the profile
// of that command but for start-up and detection.
func BenchmarkRunCaptureFile(b *testing.B) {
	name := os.Getenv("EVCAP_BENCH_CAPTURE")
	if name == "" {
		b.Skip("EVCAP_BENCH_CAPTURE not set")
	}
	st, err := os.Stat(name)
	if err != nil {
		b.Fatal(err)
	}
	opts := replay.Options{Mode: replay.ModeNative, Normalizer: func() replay.Normalizer { return claude.New() }}
	b.SetBytes(st.Size())
	b.ReportAllocs()
	for b.Loop() {
		f, err := os.Open(name)
		if err != nil {
			b.Fatal(err)
		}
		err = replay.RunCapture(f, name, opts)
		f.Close()
		if err != nil {
			b.Fatal(err)
		}
	}
}
