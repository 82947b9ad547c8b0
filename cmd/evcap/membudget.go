package main

import (
	"bytes"
	"context"
	"os"
	"runtime/debug"
	"sync"
)

// softMemoryLimit is the heap size evcap asks the Go collector to stay
// near. evcap promises a peak RSS of 64 MiB plus three times the longest
// line (fault row 07); with the default pacing the collector lets the heap
// grow to twice what is live, which the redaction rule set alone (about
// 4 MiB of compiled regexps) pushes past that bound under load. A soft
// limit only makes collection earlier: above it the program goes on, just
// collecting more often. GOMEMLIMIT, when set, wins.
const softMemoryLimit = 40 << 20

// recordMemoryLimit is record's starting limit instead. When the child
// outruns it, record's queue fills (8 MiB) and its live heap sits at
// 16-19 MB, so the collector's goal is set by the limit alone: at 40 MiB
// the heap reached 28-29 MB and the 200 MB run peaked at 55 MiB of RSS
// against 33 MiB for a 1 MB run (ratio 1.67, issue 16 asks 1.5). At
// 32 MiB the 200 MB run peaks at 49 MiB (1.38) and record's CPU on the
// bench run did not change (0.82-0.85 s user in three interleaved runs,
// 0.78-0.92 s before). The other commands keep 40 MiB: scan's CPU rose
// by about 15 % at 32 MiB.
const recordMemoryLimit = 32 << 20

// longLineMin is the line length from which the memory budget follows
// the longest line: a command holds a few copies of the line it is on
// (read, decoded, redacted, written), so with the fixed limit a line of
// many MiB made the collector run back to back while it was worked on
// (18 of record's 25 collections on the bench run fell in its 10.5 MB
// line, live memory 33-38 MB against the 40 MiB limit).
const longLineMin = 1 << 20

// memoryBudget sets the soft memory limit of one evcap run: a base
// (softMemoryLimit, or the command's own through useBase), and once a
// line longer than longLineMin has been seen, the base plus twice the
// longest line so far. The promise is 64 MiB + 3 x the longest line
// of peak RSS, so the limit rises with the allowance and keeps the same
// margin under it; it never falls during a run, because the longest line
// is what the promise is about, not the line being read now.
//
// It is the only place that calls debug.SetMemoryLimit; the libraries
// know nothing of it (cmd tells it what lines its readers see).
type memoryBudget struct {
	mu      sync.Mutex
	fixed   bool  // GOMEMLIMIT is set: leave the runtime's limit alone
	base    int64 // the limit before any long line
	longest int   // the longest line over longLineMin seen, 0 before one
	limit   int64 // the limit set last
	// set is debug.SetMemoryLimit; tests give their own.
	set func(int64) int64
}

// newMemoryBudget sets the starting limit and returns the budget that
// raises it.
func newMemoryBudget() *memoryBudget {
	b := &memoryBudget{fixed: os.Getenv("GOMEMLIMIT") != "", base: softMemoryLimit, limit: softMemoryLimit, set: debug.SetMemoryLimit}
	if !b.fixed {
		b.set(softMemoryLimit)
	}
	return b
}

// sawLine tells the budget a line at least n bytes long has been read.
// While a long line is read it is told again after each read, a call
// into the runtime per read of some KiB: nothing next to the read.
func (b *memoryBudget) sawLine(n int) {
	if b == nil || b.fixed || n < longLineMin {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.longest = max(b.longest, n)
	if want := b.want(); want > b.limit {
		b.limit = want
		b.set(want)
	}
}

// want is the limit the base and the longest line ask for; b.mu is held.
func (b *memoryBudget) want() int64 {
	if b.longest == 0 {
		return b.base
	}
	return b.base + 2*int64(b.longest)
}

// useBase makes base the limit before any long line, for a command whose
// memory is better kept under another limit than softMemoryLimit. A
// command calls it once, before it reads its input: this is the one way
// the limit is lowered, so it is not for use during a run.
func (b *memoryBudget) useBase(base int64) {
	if b == nil || b.fixed {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.base = base
	if want := b.want(); want != b.limit {
		b.limit = want
		b.set(want)
	}
}

// current is the limit set last (for tests).
func (b *memoryBudget) current() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.limit
}

type budgetKey struct{}

// withBudget returns ctx carrying b, for the readers withContext makes.
func withBudget(ctx context.Context, b *memoryBudget) context.Context {
	return context.WithValue(ctx, budgetKey{}, b)
}

// budgetOf is the budget ctx carries, nil when none.
func budgetOf(ctx context.Context) *memoryBudget {
	if ctx == nil {
		return nil
	}
	b, _ := ctx.Value(budgetKey{}).(*memoryBudget)
	return b
}

// lineWatch follows the length of the line a reader is in, from the
// bytes each Read returns, and tells the budget of every line passing
// longLineMin. It looks at the first and last newline of each read only
// (lines wholly inside a read are shorter than the read), and at all of
// them in a read longer than longLineMin, so it costs little next to
// the read.
type lineWatch struct {
	b   *memoryBudget
	run int // bytes since the last newline
}

func (w *lineWatch) saw(p []byte) {
	first := bytes.IndexByte(p, '\n')
	if first < 0 {
		w.run += len(p)
		w.b.sawLine(w.run)
		return
	}
	w.b.sawLine(w.run + first)
	last := bytes.LastIndexByte(p, '\n')
	if len(p) >= longLineMin {
		for i := first; i < last; {
			j := bytes.IndexByte(p[i+1:], '\n')
			w.b.sawLine(j)
			i += 1 + j
		}
	}
	w.run = len(p) - last - 1
	w.b.sawLine(w.run) // the start of a line already longer than longLineMin
}

// reset forgets the line in progress: the reader moved (Seek), and what
// it reads next is not known to continue it.
func (w *lineWatch) reset() { w.run = 0 }
