package replay

import (
	"bytes"
	"context"
	"io"
	"iter"
	"sort"
	"sync"
)

// Pipeline is code under test that reads a native stream and writes its
// output: a parser and renderer of the integrator's own, wired the way
// their program wires them.
type Pipeline func(r io.Reader, w io.Writer) error

// Fed is a range of native lines (by NativeLine.Index, both ends included)
// that had been fed while some output was written.
type Fed struct{ First, Last int }

// Driven is what code under test wrote when fed one chunking of a stream.
type Driven struct {
	Chunking Chunking
	Output   []byte
	// LineFed[i] covers the native lines read from when output line i was
	// begun until it was ended (its newline written). Output written after
	// the last Read is attributed to the last lines read.
	LineFed []Fed
	// Err is the pipeline's error, or how the command ended (exec).
	Err error
	// ErrFed is what was being fed when the pipeline returned.
	ErrFed Fed
	// Stderr is what an exec'd command wrote to stderr.
	Stderr []byte
}

// Drive runs p once over lines split by c, in the calling goroutine, and
// returns what it wrote. Each Read p makes gets at most one chunk (less
// when its buffer is smaller: the rest comes with the next Read); the
// reader fails with ctx's error once ctx is done. Drive never fails
// itself: p's error is in the result.
func Drive(ctx context.Context, lines []NativeLine, c Chunking, p Pipeline) *Driven {
	next, stop := iter.Pull(c.Chunks(lines))
	defer stop()
	r := &chunkReader{ctx: ctx, next: next, starts: lineStarts(lines), lines: lines}
	w := &attrWriter{fed: r.current}
	d := &Driven{Chunking: c}
	d.Err = p(r, w)
	d.ErrFed = r.current()
	d.Output, d.LineFed = w.finish()
	return d
}

// lineStarts is the stream offset of each line.
func lineStarts(lines []NativeLine) []int {
	out := make([]int, len(lines))
	off := 0
	for i, l := range lines {
		out[i] = off
		off += len(l.Line) + 1
	}
	return out
}

// chunkReader hands out the chunks and remembers which lines the last
// Read returned bytes of.
type chunkReader struct {
	ctx    context.Context
	next   func() (Chunk, bool)
	starts []int
	lines  []NativeLine
	cur    []byte
	off    int // stream offset of cur
	mu     sync.Mutex
	fed    Fed
	eof    bool
}

func (r *chunkReader) Read(p []byte) (int, error) {
	if err := r.ctx.Err(); err != nil {
		return 0, err
	}
	if len(p) == 0 {
		return 0, nil
	}
	if len(r.cur) == 0 {
		if r.eof {
			return 0, io.EOF
		}
		c, ok := r.next()
		if !ok {
			r.eof = true
			return 0, io.EOF
		}
		r.cur = c.Data
	}
	n := copy(p, r.cur)
	r.cur = r.cur[n:]
	r.mu.Lock()
	r.fed = Fed{r.lineAt(r.off), r.lineAt(r.off + n - 1)}
	r.mu.Unlock()
	r.off += n
	return n, nil
}

func (r *chunkReader) lineAt(off int) int {
	i := sort.Search(len(r.starts), func(i int) bool { return r.starts[i] > off }) - 1
	if i < 0 || len(r.lines) == 0 {
		return 0
	}
	return r.lines[i].Index
}

func (r *chunkReader) current() Fed {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.fed
}

// attrWriter collects output and attributes each line to what was being
// fed while it was written.
type attrWriter struct {
	fed     func() Fed
	mu      sync.Mutex
	out     bytes.Buffer
	lineFed []Fed
	open    bool // a line is begun and not ended
	start   Fed
}

func (w *attrWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	now := w.fed()
	for _, b := range p {
		if !w.open {
			w.open, w.start = true, now
		}
		if b == '\n' {
			w.lineFed = append(w.lineFed, Fed{w.start.First, now.Last})
			w.open = false
		}
	}
	w.out.Write(p)
	return len(p), nil
}

func (w *attrWriter) finish() ([]byte, []Fed) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.open {
		w.lineFed = append(w.lineFed, Fed{w.start.First, w.fed().Last})
	}
	return w.out.Bytes(), w.lineFed
}
