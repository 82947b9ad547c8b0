package sanitize

import (
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/evcap/evcap/redact"
)

// Prefetch lets a LineRedactor use more than one core: the rules'
// redaction of a JSON line (redact.Redactor.JSON) depends on the line
// alone, so lines the caller is about to push can be redacted ahead, on
// other goroutines, while the lines before them are pushed. Everything
// with state (the delta trackers, the blocks' streams, the order of the
// lines) stays in Push, so what Push releases is the same as without.
//
// The lines redacted ahead are bounded in bytes (PrefetchWindow past the
// last line Push took), however many the caller hands over: each holds a
// redacted copy until it is pushed. When Push comes to a line a helper is
// still redacting, it redacts a line further on meanwhile instead of
// waiting idle, so the caller's goroutine and the helpers share the work.

// PrefetchWindow bounds the bytes of the lines redacted ahead of Push: a
// line is started only when it and the lines between it and the last line
// Push took come to at most this many bytes (or when it is the next line
// Push takes).
const PrefetchWindow = 256 << 10

// prefetchLine is one line handed to Prefetch.
type prefetchLine struct {
	line  []byte
	end   int          // bytes of this line and the lines before it
	state atomic.Int32 // pfFree, pfTaken (being redacted), pfDone
	out   []byte
	found []redact.Finding
	err   error
}

const (
	pfFree int32 = iota
	pfTaken
	pfDone
)

type prefetch struct {
	red   *redact.Redactor
	lines []prefetchLine
	at    map[*byte]int // first byte of a line -> index in lines
	next  atomic.Int64  // the next line a helper looks at
	// pushed is the index after the last line Push took: the window
	// starts there.
	pushed atomic.Int64
	stop   atomic.Bool
	// waiting counts the goroutines waiting on cond (helpers for the
	// window to move, Push for a line being redacted).
	waiting atomic.Int32
	mu      sync.Mutex
	cond    sync.Cond
	wg      sync.WaitGroup
	// ahead is the most bytes of lines ever redacted ahead of Push at
	// once (for tests).
	ahead atomic.Int64
}

// Prefetch starts redacting lines, each a line the caller will give to
// Push later (the very slice: same first byte and length), on helper
// goroutines (GOMAXPROCS-1 of them, at most 3; none on one core). The lines must
// not change until EndPrefetch returns. Push takes a line's redaction
// from here when it is done, redacts other lines of the window while a
// helper is at it, and redacts it itself otherwise. Lines that do not
// start with { or [ are left to Push. Any number of lines may be given:
// at most PrefetchWindow bytes of them are redacted ahead of Push.
func (lr *LineRedactor) Prefetch(lines [][]byte) {
	lr.EndPrefetch()
	helpers := min(runtime.GOMAXPROCS(0)-1, 3)
	if helpers < 1 || len(lines) < 2 {
		return
	}
	pf := lr.spare
	lr.spare = nil
	if pf == nil {
		pf = &prefetch{at: make(map[*byte]int, len(lines))}
		pf.cond.L = &pf.mu
	}
	pf.red = lr.red
	end := 0
	for _, l := range lines {
		if len(l) == 0 || (l[0] != '{' && l[0] != '[') {
			continue
		}
		if _, dup := pf.at[&l[0]]; dup {
			continue
		}
		pf.at[&l[0]] = len(pf.lines)
		end += len(l)
		pf.lines = append(pf.lines, prefetchLine{line: l, end: end})
	}
	if len(pf.lines) < 2 {
		lr.recycle(pf)
		return
	}
	lr.pf = pf
	for range helpers {
		pf.wg.Add(1)
		go pf.help()
	}
}

// help is a helper goroutine: it redacts the lines in turn, each once it
// is inside the window.
func (pf *prefetch) help() {
	defer pf.wg.Done()
	for !pf.stop.Load() {
		i := int(pf.next.Add(1) - 1)
		if i >= len(pf.lines) {
			return
		}
		if i < int(pf.pushed.Load()) {
			continue // Push has gone past it
		}
		if !pf.inWindow(i) {
			pf.mu.Lock()
			pf.waiting.Add(1)
			for !pf.stop.Load() && !pf.inWindow(i) {
				pf.cond.Wait()
			}
			pf.waiting.Add(-1)
			pf.mu.Unlock()
		}
		if pf.stop.Load() {
			return
		}
		pf.run(i)
	}
}

// inWindow reports whether line i may be redacted now.
func (pf *prefetch) inWindow(i int) bool {
	p := int(pf.pushed.Load())
	if i <= p {
		return true
	}
	start := 0
	if p > 0 {
		start = pf.lines[p-1].end
	}
	n := pf.lines[i].end - start
	if n > PrefetchWindow {
		return false
	}
	if int64(n) > pf.ahead.Load() {
		pf.ahead.Store(int64(n)) // racy maximum: for tests, which run one helper
	}
	return true
}

// run redacts line i unless someone else has taken it.
func (pf *prefetch) run(i int) {
	pl := &pf.lines[i]
	if !pl.state.CompareAndSwap(pfFree, pfTaken) {
		return // Push is at it, or was
	}
	pl.out, pl.found, pl.err = pf.red.JSON(pl.line)
	pl.state.Store(pfDone)
	if pf.waiting.Load() > 0 {
		pf.mu.Lock()
		pf.cond.Broadcast()
		pf.mu.Unlock()
	}
}

// steal has Push redact the next line a helper would take, when it is
// inside the window; false when there is none.
func (pf *prefetch) steal() bool {
	i := pf.next.Load()
	if int(i) >= len(pf.lines) || !pf.inWindow(int(i)) || !pf.next.CompareAndSwap(i, i+1) {
		return false
	}
	pf.run(int(i))
	return true
}

// EndPrefetch stops the helpers Prefetch started, waits for them and
// forgets the lines. Lines it did not reach are redacted by Push as they
// come.
func (lr *LineRedactor) EndPrefetch() {
	pf := lr.pf
	if pf == nil {
		return
	}
	pf.stop.Store(true)
	pf.mu.Lock()
	pf.cond.Broadcast()
	pf.mu.Unlock()
	pf.wg.Wait()
	lr.pf = nil
	lr.recycle(pf)
}

// recycle keeps an ended prefetch's arrays for the next Prefetch.
func (lr *LineRedactor) recycle(pf *prefetch) {
	clear(pf.lines)
	pf.lines = pf.lines[:0]
	clear(pf.at)
	pf.red = nil
	pf.next.Store(0)
	pf.pushed.Store(0)
	pf.stop.Store(false)
	if cap(pf.lines) > 1<<16 {
		return // an unusually large batch: not kept
	}
	lr.spare = pf
}

// json is red.JSON(line), taken from the prefetch when it has the line.
func (lr *LineRedactor) json(line []byte) ([]byte, []redact.Finding, error) {
	pf := lr.pf
	if pf == nil || len(line) == 0 {
		return lr.red.JSON(line)
	}
	i, ok := pf.at[&line[0]]
	if !ok || len(pf.lines[i].line) != len(line) {
		return lr.red.JSON(line)
	}
	pl := &pf.lines[i]
	if int64(i+1) > pf.pushed.Load() {
		pf.pushed.Store(int64(i + 1))
		if pf.waiting.Load() > 0 {
			pf.mu.Lock()
			pf.cond.Broadcast()
			pf.mu.Unlock()
		}
	}
	if pl.state.CompareAndSwap(pfFree, pfTaken) {
		out, found, err := lr.red.JSON(line)
		pl.state.Store(pfDone)
		return out, found, err
	}
	for pl.state.Load() != pfDone {
		if pf.steal() {
			continue
		}
		pf.mu.Lock()
		pf.waiting.Add(1)
		for pl.state.Load() != pfDone && !pf.canSteal() {
			pf.cond.Wait()
		}
		pf.waiting.Add(-1)
		pf.mu.Unlock()
	}
	out, found, err := pl.out, pl.found, pl.err
	pl.out, pl.found, pl.err = nil, nil, nil
	return out, found, err
}

// canSteal reports whether steal would find a line.
func (pf *prefetch) canSteal() bool {
	i := int(pf.next.Load())
	return i < len(pf.lines) && pf.inWindow(i)
}
