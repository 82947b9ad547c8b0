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
type console struct {
	mu        sync.Mutex
	w         io.Writer
	status    bool
	shown     bool
	lineStart bool
	line      func() string
}

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

// redraw shows the current status line, when there is a terminal to show
// it on and the cursor is at the start of a line.
func (c *console) redraw() {
	if !c.status {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
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
			s.perCall[e.MessageID] = e.Usage.Total()
		}
		total := s.cumulative
		for _, v := range s.perCall {
			total += v
		}
		s.tokens.Store(total)
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
