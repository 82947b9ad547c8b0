package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
	"testing/iotest"
)

// TestMemoryBudgetFollowsTheLongestLine reads inputs through the reader
// withContext makes, in several chunkings, and checks the limit the
// budget asks the runtime for: 40 MiB until a line passes 1 MiB, then
// 40 MiB plus twice the longest line, never lower again.
func TestMemoryBudgetFollowsTheLongestLine(t *testing.T) {
	line := func(n int) string { return strings.Repeat("x", n) + "\n" }
	cases := []struct {
		name    string
		input   string
		longest int // 0: no line reaches longLineMin
	}{
		{"short lines", strings.Repeat(line(900), 5000), 0},
		{"just under", line(longLineMin-1) + line(10), 0},
		{"one long line", line(10) + line(3<<20) + line(10), 3 << 20},
		{"long then longer", line(longLineMin+5) + line(100) + line(2<<20+7) + line(longLineMin), 2<<20 + 7},
		{"torn long last line", line(10) + strings.Repeat("y", longLineMin+3), longLineMin + 3},
		{"long lines inside one read", line(5) + line(longLineMin+1) + line(longLineMin+9) + line(5), longLineMin + 9},
	}
	chunkings := map[string]func(io.Reader) io.Reader{
		"whole":  func(r io.Reader) io.Reader { return r },
		"half":   iotest.HalfReader,
		"64 KiB": func(r io.Reader) io.Reader { return &chunkReader{r: r, n: 64 << 10} },
		"odd":    func(r io.Reader) io.Reader { return &chunkReader{r: r, n: 4093} },
	}
	for _, c := range cases {
		for cn, chunk := range chunkings {
			t.Run(c.name+"/"+cn, func(t *testing.T) {
				var calls []int64
				b := &memoryBudget{base: softMemoryLimit, limit: softMemoryLimit, set: func(n int64) int64 { calls = append(calls, n); return 0 }}
				r := withContext(withBudget(context.Background(), b), chunk(strings.NewReader(c.input)))
				buf := make([]byte, 8<<20) // one Read may return several long lines whole
				var got bytes.Buffer
				for {
					n, err := r.Read(buf)
					got.Write(buf[:n])
					if err == io.EOF {
						break
					}
					if err != nil {
						t.Fatal(err)
					}
				}
				if got.String() != c.input {
					t.Fatal("the reader changed the bytes")
				}
				want := int64(softMemoryLimit)
				if c.longest > 0 {
					want += 2 * int64(c.longest)
				}
				if b.current() != want {
					t.Errorf("limit %d, want %d (40 MiB + 2 x %d)", b.current(), want, c.longest)
				}
				for i := 1; i < len(calls); i++ {
					if calls[i] <= calls[i-1] {
						t.Errorf("limit lowered or set again: %v", calls)
						break
					}
				}
				if c.longest == 0 && len(calls) > 0 {
					t.Errorf("limit set for short lines: %v", calls)
				}
			})
		}
	}
}

// TestMemoryBudgetLeavesGOMEMLIMIT: with GOMEMLIMIT set, evcap never
// touches the runtime's limit, and withContext adds no line watch.
func TestMemoryBudgetLeavesGOMEMLIMIT(t *testing.T) {
	t.Setenv("GOMEMLIMIT", "64MiB")
	b := newMemoryBudget()
	if !b.fixed {
		t.Fatal("GOMEMLIMIT set, budget not fixed")
	}
	called := false
	b.set = func(int64) int64 { called = true; return 0 }
	r := withContext(withBudget(context.Background(), b), strings.NewReader(strings.Repeat("z", 2<<20)+"\n"))
	if cr, ok := r.(budgetReadSeeker); !ok || cr.w != nil {
		t.Fatalf("reader %T has a line watch with GOMEMLIMIT set", r)
	}
	if _, err := io.Copy(io.Discard, r); err != nil {
		t.Fatal(err)
	}
	b.useBase(recordMemoryLimit)
	if called {
		t.Error("limit set although GOMEMLIMIT is")
	}
}

// TestMemoryBudgetUseBase: a command's own base replaces softMemoryLimit
// in both the starting limit and the long-line limit, whether it is set
// before or after the first long line.
func TestMemoryBudgetUseBase(t *testing.T) {
	var calls []int64
	b := &memoryBudget{base: softMemoryLimit, limit: softMemoryLimit, set: func(n int64) int64 { calls = append(calls, n); return 0 }}
	b.useBase(recordMemoryLimit)
	if b.current() != recordMemoryLimit || len(calls) != 1 || calls[0] != recordMemoryLimit {
		t.Fatalf("after useBase: limit %d, calls %v, want %d", b.current(), calls, recordMemoryLimit)
	}
	b.sawLine(3 << 20)
	if want := int64(recordMemoryLimit + 2*(3<<20)); b.current() != want {
		t.Errorf("after a 3 MiB line: limit %d, want %d", b.current(), want)
	}
	b.useBase(softMemoryLimit)
	if want := int64(softMemoryLimit + 2*(3<<20)); b.current() != want {
		t.Errorf("base raised after a 3 MiB line: limit %d, want %d", b.current(), want)
	}
}

// TestRecordUsesItsMemoryBase runs record and normalize in-process and
// reads the runtime's soft memory limit after each: record keeps its
// queue-heavy heap under recordMemoryLimit, the others under
// softMemoryLimit. The limit is process-wide, so it is put back after.
func TestRecordUsesItsMemoryBase(t *testing.T) {
	if os.Getenv("GOMEMLIMIT") != "" {
		t.Skip("GOMEMLIMIT set: evcap leaves the limit alone")
	}
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1))
	in, err := os.ReadFile("../../testdata/corpus/claude/error-retry.stdout.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "cap.jsonl")
	if _, errOut, code := runEvcap(t, in, "record", "--stdin", "--render", "none", "-o", out); code != 0 {
		t.Fatalf("record: exit %d: %s", code, errOut)
	}
	if got := debug.SetMemoryLimit(-1); got != recordMemoryLimit {
		t.Errorf("after record: limit %d, want %d", got, recordMemoryLimit)
	}
	if _, errOut, code := runEvcap(t, in, "normalize", "-"); code != 0 {
		t.Fatalf("normalize: exit %d: %s", code, errOut)
	}
	if got := debug.SetMemoryLimit(-1); got != softMemoryLimit {
		t.Errorf("after normalize: limit %d, want %d", got, softMemoryLimit)
	}
}

// chunkReader returns at most n bytes per Read.
type chunkReader struct {
	r io.Reader
	n int
}

func (c *chunkReader) Read(p []byte) (int, error) {
	if len(p) > c.n {
		p = p[:c.n]
	}
	return c.r.Read(p)
}
