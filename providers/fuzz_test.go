package providers_test

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/evcap/evcap/internal/corpustest"
	"github.com/evcap/evcap/providers"
)

// FuzzDeltas feeds every provider's tracker and detector the lines of
// arbitrary input: no panic, and every piece a tracker reports is a JSON
// string at its path, in a block with a name. Seeded with runs of real
// corpus lines.
func FuzzDeltas(f *testing.F) {
	for _, pat := range []string{"claude/tools-partial.stdout.jsonl", "gemini/tools.stdout.jsonl",
		"opencode/serve-tools.sse.txt", "opencode/serve-tools.stdout.jsonl", "codex/tools.stdout.jsonl"} {
		var run [][]byte
		corpustest.EachLine(f, filepath.Join(corpustest.Dir(f), pat), func(_ int64, line []byte) {
			run = append(run, bytes.Clone(line))
			if len(run) == 6 {
				f.Add(bytes.Join(run, []byte("\n")))
				run = run[:0]
			}
		})
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		lines := bytes.Split(in, []byte("\n"))
		for _, d := range providers.All() {
			tr := d.Deltas()
			for _, l := range lines {
				d.Detect(l)
				for _, x := range tr.Line(l) {
					if x.Block == "" {
						t.Fatalf("%s: a piece with no block in %q", d.Name, l)
					}
					if _, _, _, ok := x.Locate(l); !ok {
						t.Fatalf("%s: piece %+v does not point at a string in %q", d.Name, x, l)
					}
				}
				tr.Ended()
			}
		}
		providers.DetectStream(lines)
		providers.DetectHistory(lines)
	})
}
