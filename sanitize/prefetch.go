package sanitize

import (
	"runtime"
	"slices"
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

// prefetchLine is one line handed to Prefetch.
type prefetchLine struct {
	line  []byte
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
	lines []prefetchLine
	at    map[*byte]int // first byte of a line -> index in lines
	next  atomic.Int64  // the next line a helper looks at
	stop  atomic.Bool
	mu    sync.Mutex
	cond  sync.Cond
	wg    sync.WaitGroup
}

// Prefetch starts redacting lines, each a line the caller will give to
// Push later (the very slice: same first byte and length), on helper
// goroutines (GOMAXPROCS-1 of them, at most 3; none on one core). The lines must
// not change until EndPrefetch returns. Push takes a line's redaction
// from here when it is done, waits for it when a helper is at it, and
// redacts it itself otherwise. Lines that do not start with { or [ are
// left to Push.
func (lr *LineRedactor) Prefetch(lines [][]byte) {
	lr.EndPrefetch()
	helpers := min(runtime.GOMAXPROCS(0)-1, 3)
	if helpers < 1 || len(lines) < 2 {
		return
	}
	pf := lr.pfSpare
	lr.pfSpare = nil
	if pf == nil {
		pf = &prefetch{at: make(map[*byte]int, len(lines))}
		pf.cond.L = &pf.mu
	}
	pf.lines = slices.Grow(pf.lines[:0], len(lines))
	for _, l := range lines {
		if len(l) == 0 || (l[0] != '{' && l[0] != '[') {
			continue
		}
		if _, dup := pf.at[&l[0]]; dup {
			continue
		}
		pf.at[&l[0]] = len(pf.lines)
		pf.lines = append(pf.lines, prefetchLine{line: l})
	}
	if len(pf.lines) < 2 {
		lr.keepPrefetch(pf)
		return
	}
	lr.pf = pf
	red := lr.red
	for range helpers {
		pf.wg.Add(1)
		go func() {
			defer pf.wg.Done()
			for !pf.stop.Load() {
				i := int(pf.next.Add(1) - 1)
				if i >= len(pf.lines) {
					return
				}
				pl := &pf.lines[i]
				if !pl.state.CompareAndSwap(pfFree, pfTaken) {
					continue // Push is at it, or was
				}
				pl.out, pl.found, pl.err = red.JSON(pl.line)
				pf.mu.Lock()
				pl.state.Store(pfDone)
				pf.cond.Broadcast()
				pf.mu.Unlock()
			}
		}()
	}
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
	pf.wg.Wait()
	lr.pf = nil
	lr.keepPrefetch(pf)
}

// keepPrefetch empties pf, whose helpers are done, for the next Prefetch:
// a caller prefetches every chunk it reads, and the arrays of one serve
// the next.
func (lr *LineRedactor) keepPrefetch(pf *prefetch) {
	if cap(pf.lines) > maxKeptPrefetch {
		return
	}
	clear(pf.lines)
	pf.lines = pf.lines[:0]
	clear(pf.at)
	pf.next.Store(0)
	pf.stop.Store(false)
	lr.pfSpare = pf
}

// maxKeptPrefetch is the most lines whose prefetch arrays are kept.
const maxKeptPrefetch = 1 << 14

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
	if pl.state.CompareAndSwap(pfFree, pfTaken) {
		out, found, err := lr.red.JSON(line)
		pl.state.Store(pfDone)
		return out, found, err
	}
	if pl.state.Load() != pfDone {
		pf.mu.Lock()
		for pl.state.Load() != pfDone {
			pf.cond.Wait()
		}
		pf.mu.Unlock()
	}
	out, found, err := pl.out, pl.found, pl.err
	pl.out, pl.found, pl.err = nil, nil, nil
	return out, found, err
}
