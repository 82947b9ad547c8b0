package sanitize_test

import (
	"bytes"
	"fmt"
	"slices"
	"testing"

	"github.com/evcap/evcap/bench/gen"
	"github.com/evcap/evcap/internal/lines"
	"github.com/evcap/evcap/redact"
	"github.com/evcap/evcap/sanitize"
	"github.com/google/go-cmp/cmp"
)

// released is what a LineRedactor released, copied (its slices are valid
// only until the next call).
func releasedCopy(out *[]sanitize.RedactedLine, rls []sanitize.RedactedLine) {
	for _, rl := range rls {
		rl.Line = bytes.Clone(rl.Line)
		rl.Ledger = append(rl.Ledger[:0:0], rl.Ledger...)
		*out = append(*out, rl)
	}
}

// TestLineRedactorPrefetch pushes generated runs with planted secrets (and
// a few text lines) through a LineRedactor with and without Prefetch of the
// lines about to be pushed, in groups of several sizes: what it releases
// must be the same, line by line.
func TestLineRedactorPrefetch(t *testing.T) {
	red, err := redact.New(redact.Options{Home: "/home/dev", Project: "/home/dev/src/app", Temp: []string{"/tmp"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range gen.Providers() {
		var raw bytes.Buffer
		if _, err := gen.Write(&raw, gen.Options{Provider: p, Size: 64 << 10, Seed: 7, SecretEvery: 2}); err != nil {
			t.Fatal(err)
		}
		var ls [][]byte
		lr := lines.NewReader(&raw)
		for i := 0; ; i++ {
			l, err := lr.Next()
			if err != nil {
				break
			}
			ls = append(ls, bytes.Clone(l))
			if i%97 == 3 {
				ls = append(ls, []byte("plain text line token=hunter2hunter2 /home/dev/src/app/x"))
			}
		}
		var want []sanitize.RedactedLine
		plain := sanitize.NewLineRedactor(red, sanitize.LineOptions{Provider: p})
		for _, l := range ls {
			releasedCopy(&want, plain.Push(l))
		}
		releasedCopy(&want, plain.Flush())
		redacted := 0
		for _, rl := range want {
			if len(rl.Ledger) > 0 {
				redacted++
			}
		}
		if redacted == 0 {
			t.Fatalf("%s: no line redacted: the test would not see a difference", p)
		}
		for _, group := range []int{1, 5, 64, len(ls)} {
			t.Run(fmt.Sprintf("%s/%d", p, group), func(t *testing.T) {
				var got []sanitize.RedactedLine
				r := sanitize.NewLineRedactor(red, sanitize.LineOptions{Provider: p})
				for i := 0; i < len(ls); i += group {
					end := min(i+group, len(ls))
					r.Prefetch(ls[i:end])
					for _, l := range ls[i:end] {
						releasedCopy(&got, r.Push(l))
					}
					r.EndPrefetch()
				}
				releasedCopy(&got, r.Flush())
				if len(got) != len(want) {
					t.Fatalf("%d lines released with Prefetch, %d without", len(got), len(want))
				}
				for i := range want {
					if !bytes.Equal(got[i].Line, want[i].Line) || !slices.Equal(got[i].Ledger, want[i].Ledger) || got[i].Stderr != want[i].Stderr {
						t.Fatalf("line %d differs with Prefetch (-without +with):\n%s", i, cmp.Diff(want[i], got[i]))
					}
				}
			})
		}
	}
}
