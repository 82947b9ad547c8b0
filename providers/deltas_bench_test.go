package providers_test

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/evcap/evcap/internal/corpustest"
	"github.com/evcap/evcap/providers"
)

// BenchmarkDeltas runs each provider's tracker over its largest-delta
// corpus capture (bytes/s is of native input).
func BenchmarkDeltas(b *testing.B) {
	for _, c := range []struct{ provider, file string }{
		{"claude", "claude/long-text-partial.stdout.jsonl"},
		{"gemini", "gemini/long-text.stdout.jsonl"},
		{"opencode", "opencode/serve-tools.sse.txt"},
		{"codex", "codex/tools.stdout.jsonl"},
	} {
		var lines [][]byte
		size := 0
		corpustest.EachLine(b, filepath.Join(corpustest.Dir(b), c.file), func(_ int64, l []byte) {
			lines = append(lines, bytes.Clone(l))
			size += len(l) + 1
		})
		d, _ := providers.Lookup(c.provider)
		b.Run(c.provider, func(b *testing.B) {
			b.SetBytes(int64(size))
			for b.Loop() {
				tr := d.Deltas()
				for _, l := range lines {
					tr.Line(l)
					tr.Ended()
				}
			}
		})
	}
}
