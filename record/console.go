package record

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/evcap/evcap/event"
)

// console is evcap's standard error, shared by the child's stderr, the
// renderer, notes and the live status line. Every write goes through its
// lock; the status line is erased before other output and redrawn only at
// the start of a line, so it never cuts a streamed sentence in two.
//
// The live rendering is buffered (see rendered): a renderer writes a
// little text per event, and a write of its own for each cost a system
// call per event (a quarter of the CPU of evcap record --stdin on a fast
// agent, more on a terminal). What it wrote is written out at the end of
// each batch of the pipeline's writing steps (flush), when 32 KiB are
// waiting, and before anything else is written to the console, so the
// order on the console is the order of the writes.
type console struct {
	mu        sync.Mutex
	w         io.Writer
	status    bool
	shown     bool
	lineStart bool
	line      func() string
	// pend is the rendered text not written yet; err the first error
	// writing it, returned by the renderer's next write.
	pend []byte
	err  error
}

// renderBuffer is how much rendered text waits before it is written.
const renderBuffer = 32 << 10

func newConsole(w io.Writer, status bool, line func() string) *console {
	if w == nil {
		w = io.Discard
	}
	return &console{w: w, status: status, lineStart: true, line: line}
}

const eraseLine = "\r\x1b[K"

func (c *console) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.flushLocked()
	if c.shown {
		io.WriteString(c.w, eraseLine)
		c.shown = false
	}
	n, err := c.w.Write(p)
	if n > 0 {
		c.lineStart = p[n-1] == '\n'
	}
	return n, err
}

// rendered is the console as the renderer's writer: what it is given
// waits in the console's buffer (see console).
type rendered struct{ c *console }

func (r rendered) Write(p []byte) (int, error) {
	c := r.c
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err != nil {
		return 0, c.err
	}
	if len(p) == 0 {
		return 0, nil
	}
	if c.shown {
		c.pend = append(c.pend, eraseLine...)
		c.shown = false
	}
	c.pend = append(c.pend, p...)
	c.lineStart = p[len(p)-1] == '\n'
	if len(c.pend) >= renderBuffer {
		c.flushLocked()
	}
	return len(p), nil
}

// flush writes out the rendered text waiting.
func (c *console) flush() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.flushLocked()
}

func (c *console) flushLocked() {
	if len(c.pend) == 0 {
		return
	}
	if _, err := c.w.Write(c.pend); err != nil && c.err == nil {
		c.err = err
	}
	if cap(c.pend) > 4*renderBuffer {
		c.pend = nil
	} else {
		c.pend = c.pend[:0]
	}
}

// redraw shows the current status line, when there is a terminal to show
// it on and the cursor is at the start of a line.
func (c *console) redraw() {
	if !c.status {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.flushLocked()
	if !c.lineStart && !c.shown {
		return
	}
	io.WriteString(c.w, eraseLine+c.line())
	c.shown = true
}

// clear removes the status line for good.
func (c *console) clear() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.flushLocked()
	if c.shown {
		io.WriteString(c.w, eraseLine)
		c.shown = false
	}
	c.status = false
}

// stats are the running figures of the status line and capture.end. The
// pipeline's writer steps write them; the status ticker reads them.
type stats struct {
	events atomic.Int64
	tools  atomic.Int64
	tokens atomic.Int64

	// Owned by whoever does the writer's steps (under its lock).
	perCall    map[string]int64
	perCallSum int64 // the sum of perCall
	cumulative int64
	toolIDs    map[string]bool
}

func (s *stats) add(e event.Event) {
	s.events.Add(1)
	switch e.Kind {
	case event.KindTool:
		if s.toolIDs == nil {
			s.toolIDs = map[string]bool{}
		}
		if e.ToolCallID == "" || !s.toolIDs[e.ToolCallID] {
			s.toolIDs[e.ToolCallID] = true
			s.tools.Add(1)
		}
	case event.KindUsage:
		if e.Usage == nil {
			break
		}
		if e.Usage.Cumulative {
			s.cumulative = e.Usage.Total()
		} else {
			// A model call reports its usage more than once (start,
			// end); the latest figure per call counts.
			if s.perCall == nil {
				s.perCall = map[string]int64{}
			}
			// The sum is kept as the figures change: summing the map
			// on every usage event cost a run's writer time in the
			// number of calls made so far, per event.
			t := e.Usage.Total()
			s.perCallSum += t - s.perCall[e.MessageID]
			s.perCall[e.MessageID] = t
		}
		s.tokens.Store(s.cumulative + s.perCallSum)
	}
}

func (s *stats) line(elapsed time.Duration) string {
	return fmt.Sprintf("● evcap recording %s · %d events · %d tool calls · %s tokens",
		elapsed.Truncate(time.Second), s.events.Load(), s.tools.Load(), human(s.tokens.Load()))
}

func human(n int64) string {
	switch {
	case n >= 1_000_000:
		return strings.TrimSuffix(fmt.Sprintf("%.1f", float64(n)/1e6), ".0") + "M"
	case n >= 1000:
		return strings.TrimSuffix(fmt.Sprintf("%.1f", float64(n)/1e3), ".0") + "k"
	}
	return fmt.Sprint(n)
}
