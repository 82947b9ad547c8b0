package history_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/evcap/evcap/history"
)

// FuzzHistoryNormalizers feeds stored lines (seeded from the corpus) to
// every provider's history normalizer: none may panic, and Classify of a
// line may not change what Line then gives.
func FuzzHistoryNormalizers(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join(corpus, "*", "*", "history.jsonl"))
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		for _, l := range bytes.Split(b, []byte("\n")) {
			if len(l) > 0 && len(l) < 8<<10 {
				f.Add(l)
			}
		}
	}
	f.Add([]byte(`{"info":{"id":"m","sessionID":"s","role":"assistant"},"parts":[{"type":"tool","state":{"status":"error","error":"x"}}]}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		for _, p := range history.Providers() {
			a, _ := history.NewNormalizer(p)
			b, _ := history.NewNormalizer(p)
			b.Classify(line)
			ea := append(a.Line(1, line), a.End()...)
			eb := append(b.Line(1, line), b.End()...)
			if len(ea) != len(eb) {
				t.Fatalf("%s: Classify changed what Line gives: %d events, then %d", p, len(ea), len(eb))
			}
		}
	})
}
