package codex

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// FuzzLine feeds arbitrary lines, seeded with every corpus line (the
// pinned version's and the older versions' in all three protocols), through a
// normalizer that has already seen a turn-open prefix, so that the
// stream state (open turn, reported tool calls) is exercised too.
func FuzzLine(f *testing.F) {
	paths, _ := filepath.Glob(filepath.Join(corpusDir, "*.stdout.jsonl"))
	extra, _ := filepath.Glob(filepath.Join(extraDir, "*", "*.stdout.jsonl"))
	paths = append(paths, extra...)
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		for _, l := range bytes.Split(b, []byte("\n")) {
			f.Add(l)
		}
	}
	prefix, err := os.ReadFile(filepath.Join(corpusDir, "tools.stdout.jsonl"))
	if err != nil {
		f.Fatal(err)
	}
	prefix = prefix[:len(prefix)/2]
	f.Fuzz(func(t *testing.T, line []byte) {
		n := New()
		ref := int64(0)
		for _, l := range bytes.Split(prefix, []byte("\n")) {
			ref++
			n.Line(ref, l)
		}
		c := n.Classify(line)
		if c.NativeType == "" || c.Disposition == "" {
			t.Fatalf("empty classification %+v", c)
		}
		for _, ev := range append(n.Line(ref+1, line), n.End()...) {
			if ev.Kind == "" || ev.Phase == "" {
				t.Fatalf("event without kind or phase: %+v", ev)
			}
			if _, err := json.Marshal(ev); err != nil {
				t.Fatalf("event does not marshal: %v", err)
			}
		}
	})
}
