package envelope_test

import (
	"bytes"
	"testing"

	"github.com/evcap/evcap/bench/gen"
	"github.com/evcap/evcap/envelope"
)

// TestScanMatchesOldOnGenerated compares the one-pass reader with the old
// one (see scan_test.go) on captures of generated runs of every provider.
func TestScanMatchesOldOnGenerated(t *testing.T) {
	for _, p := range []string{"claude", "codex", "opencode", "gemini"} {
		// Under the race detector one seed a provider (10.6 s for three):
		// the reader under test is sequential, and the generated shapes
		// repeat across seeds; the three run without it in after-heavy's
		// and any plain run.
		seeds := uint64(3)
		if envelope.RaceEnabled {
			seeds = 1
		}
		for seed := uint64(1); seed <= seeds; seed++ {
			var raw bytes.Buffer
			if _, err := gen.Write(&raw, gen.Options{Provider: p, Size: 256 << 10, Seed: seed}); err != nil {
				t.Fatal(err)
			}
			ls := bytes.Split(bytes.TrimSuffix(raw.Bytes(), []byte("\n")), []byte("\n"))
			if len(ls) < 50 {
				t.Fatalf("%s: only %d generated lines", p, len(ls))
			}
			data := envelope.CaptureOf(t, ls, [][]byte{[]byte("warning: x"), {0xff, 0xfe}})
			envelope.SameAsOld(t, p, data)
		}
	}
}
