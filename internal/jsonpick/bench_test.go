package jsonpick_test

// The benchmark is an external test: bench/gen imports envelope, which
// imports jsonpick.

import (
	"bytes"
	"testing"

	"github.com/evcap/evcap/bench/gen"
	"github.com/evcap/evcap/internal/jsonpick"
	"github.com/evcap/evcap/internal/lines"
	"github.com/tidwall/gjson"
)

// genLines is a generated run of each provider, split into lines.
func genLines(b *testing.B) map[string][][]byte {
	out := map[string][][]byte{}
	for _, p := range []string{"claude", "codex", "gemini", "opencode"} {
		var raw bytes.Buffer
		if _, err := gen.Write(&raw, gen.Options{Provider: p, Size: 4 << 20, Seed: 1}); err != nil {
			b.Fatal(err)
		}
		lr := lines.NewReader(&raw)
		for {
			l, err := lr.Next()
			if err != nil {
				break
			}
			out[p] = append(out[p], bytes.Clone(l))
		}
	}
	return out
}

// BenchmarkValid compares Valid with gjson.ValidBytes on generated runs.
func BenchmarkValid(b *testing.B) {
	for p, ls := range genLines(b) {
		size := 0
		for _, l := range ls {
			size += len(l)
		}
		b.Run(p+"/Valid", func(b *testing.B) {
			b.SetBytes(int64(size))
			for b.Loop() {
				for _, l := range ls {
					if !jsonpick.Valid(l) {
						b.Fatal("invalid")
					}
				}
			}
		})
		b.Run(p+"/gjson", func(b *testing.B) {
			b.SetBytes(int64(size))
			for b.Loop() {
				for _, l := range ls {
					if !gjson.ValidBytes(l) {
						b.Fatal("invalid")
					}
				}
			}
		})
	}
}
