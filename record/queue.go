package record

import (
	"bytes"
	"sync"
	"time"
)

// stream names where a chunk of native output came from.
type stream uint8

const (
	streamStdout stream = iota
	streamStderr
	// streamStdin is what the integration wrote to the agent's standard
	// input (recorded as native_out).
	streamStdin
	// streamRequest: an HTTP request evcap made to an agent server; each
	// chunk is one capture.Request as JSON (native_out).
	streamRequest
	numStreams
)

func (s stream) String() string {
	switch s {
	case streamStderr:
		return "stderr"
	case streamStdin:
		return "stdin"
	case streamRequest:
		return "request"
	}
	return "stdout"
}

// chunk is a piece of a child's output as one read returned it, or (when
// gapBytes > 0 and data is nil) the mark of bytes the queue had to drop.
type chunk struct {
	stream stream
	data   []byte
	// at is when evcap read the bytes (the arrival clock; see
	// pipeline.arrival). A gap mark carries the time it was queued.
	at time.Time
	// eof marks the end of the stream (recorded for stdin only).
	eof         bool
	gapBytes    int64
	gapNewlines int64
	// gapEndsLine: the last dropped byte was a newline, so the next chunk
	// starts a fresh line.
	gapEndsLine bool
	// pooled: data is a buffer of the queue's pool (see release).
	pooled bool
}

// queue hands chunks from the readers of the child's pipes to the
// pipeline, with at most limit bytes waiting.
//
// When the queue is full and the pipeline is not stalled (see stall.go:
// it is working, not waiting on a write or a call that does not return),
// push waits: the reader stops reading, the pipe fills, and the
// backpressure reaches the child, so a capture that is merely slower than
// the child loses nothing. When the pipeline has been stalled for a whole
// stall period (a stuck disk or FIFO), push stops waiting and drops: the
// chunk is counted, and the count is queued as a gap mark before the next
// chunk of that stream that fits, so the capture says what it lost instead
// of losing it silently, and a stuck capture never holds up the agent or
// the --passthrough pipeline for long.
//
// A push that leaves less than wakeBytes queued does not wake the pipeline
// at once but within wakeDelay, so that a child printing a line now and
// then costs the pipeline one wake-up per few lines instead of one per
// line; the bytes still reach --passthrough at once, and each chunk keeps
// the time it arrived.
type queue struct {
	mu    sync.Mutex
	items []chunk
	// spare is the slice take handed out last time, given back by the
	// pipeline for reuse (see recycle).
	spare []chunk
	// slab holds the bytes of queued chunks, each a slice of it, so that
	// short chunks cost no allocation each; a full slab is left to the
	// chunks still pointing into it and a new one started.
	slab []byte
	// free are chunk buffers (of chunkBytes) the pipeline gave back: a
	// child's fast output is copied to the same buffers again and again
	// instead of allocating its size in fresh memory.
	free  [][]byte
	bytes int
	limit int
	// stall is how long the pipeline may wait on the outside world while
	// the queue is full before push starts dropping; waits times that.
	stall   time.Duration
	waits   *waits
	space   chan struct{}
	dropped [numStreams]struct {
		bytes, newlines int64
		endsLine        bool
	}
	closed bool
	notify chan struct{}
	// timer wakes the pipeline wakeDelay after a push that did not; armed
	// while it runs.
	timer *time.Timer
	armed bool
	// now stamps each chunk with its arrival time before push can wait.
	now func() time.Time
}

const (
	// wakeDelay bounds how long queued output waits for the pipeline to
	// wake up: the live rendering and the capture lag the child by at most
	// this much more (a screen refresh is 16 ms; the capture file is
	// flushed every 50 ms anyway).
	wakeDelay = 10 * time.Millisecond
	// wakeBytes of queued output wake the pipeline at once: a fast child
	// is recorded at full speed.
	wakeBytes = 32 << 10
	// slabBytes is the size of the byte slabs queued chunks are copied to.
	slabBytes = 64 << 10
	// chunkBytes is the size of a pooled chunk buffer: a read of the
	// readers' buffers (64 KiB) fits.
	chunkBytes = 64 << 10
)

func newQueue(limit int, stall time.Duration, w *waits, now func() time.Time) *queue {
	t := time.NewTimer(time.Hour)
	t.Stop()
	return &queue{limit: limit, stall: stall, waits: w, timer: t,
		notify: make(chan struct{}, 1), space: make(chan struct{}, 1), now: now}
}

// push queues a copy of data, waiting while the queue is full and the
// writer is still making progress. It reports false when data was dropped.
func (q *queue) push(s stream, data []byte) bool {
	at := q.now()
	q.mu.Lock()
	defer q.mu.Unlock()
	stalled := false
	for !q.closed && q.bytes > 0 && q.bytes+len(data) > q.limit {
		blocked := q.waits.longest()
		if blocked >= q.stall {
			stalled = true
			break
		}
		// Looked at again when the wait under way would reach the stall
		// timeout, and at least every quarter of it, since a wait can
		// begin at any time.
		wait := min(q.stall-blocked, max(q.stall/4, time.Millisecond))
		q.mu.Unlock()
		t := time.NewTimer(wait)
		select {
		case <-q.space:
		case <-t.C:
		}
		t.Stop()
		q.mu.Lock()
	}
	if q.closed {
		return false
	}
	if stalled {
		q.dropped[s].bytes += int64(len(data))
		q.dropped[s].newlines += int64(bytes.Count(data, []byte{'\n'}))
		q.dropped[s].endsLine = len(data) > 0 && data[len(data)-1] == '\n'
		return false
	}
	q.flushGapLocked(s, at)
	cp, pooled := q.copyIn(data)
	q.items = append(q.items, chunk{stream: s, data: cp, at: at, pooled: pooled})
	q.bytes += len(data)
	if q.bytes >= wakeBytes {
		q.wake()
	} else if !q.armed {
		q.armed = true
		q.timer.Reset(wakeDelay)
	}
	return true
}

// copyIn copies data to the slab; a chunk of more than a quarter slab gets
// a buffer of the pool (pooled), or one of its own when it is larger.
func (q *queue) copyIn(data []byte) (cp []byte, pooled bool) {
	if len(data) > slabBytes/4 {
		if len(data) > chunkBytes {
			return append([]byte(nil), data...), false
		}
		var buf []byte
		if n := len(q.free); n > 0 {
			buf = q.free[n-1]
			q.free[n-1] = nil
			q.free = q.free[:n-1]
		} else {
			buf = make([]byte, 0, chunkBytes)
		}
		return append(buf, data...), true
	}
	if cap(q.slab)-len(q.slab) < len(data) {
		q.slab = make([]byte, 0, slabBytes)
	}
	start := len(q.slab)
	q.slab = append(q.slab, data...)
	return q.slab[start:len(q.slab):len(q.slab)], false
}

// release lets go of the bytes of a chunk taken and done, which nothing
// refers to any more: a pooled buffer goes back to the pool (at most what
// a full queue holds is kept), and the chunk forgets its data either way,
// so that a batch being worked on does not keep the bytes of its chunks
// done while the readers queue new ones.
func (q *queue) release(c *chunk) {
	if c.pooled {
		q.mu.Lock()
		if len(q.free) <= q.limit/chunkBytes {
			q.free = append(q.free, c.data[:0])
		}
		q.mu.Unlock()
	}
	c.data, c.pooled = nil, false
}

func (q *queue) flushGapLocked(s stream, at time.Time) {
	if d := q.dropped[s]; d.bytes > 0 {
		q.items = append(q.items, chunk{stream: s, gapBytes: d.bytes, gapNewlines: d.newlines, gapEndsLine: d.endsLine, at: at})
		q.dropped[s].bytes, q.dropped[s].newlines, q.dropped[s].endsLine = 0, 0, false
	}
}

func (q *queue) wake() {
	select {
	case q.notify <- struct{}{}:
	default:
	}
}

// pushEOF queues the end of stream s.
func (q *queue) pushEOF(s stream) {
	at := q.now()
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed {
		return
	}
	q.flushGapLocked(s, at)
	q.items = append(q.items, chunk{stream: s, eof: true, at: at})
	q.wake()
}

// close ends the queue; drops not yet reported are queued as gap marks.
func (q *queue) close() {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed {
		return
	}
	at := q.now()
	for s := stream(0); s < numStreams; s++ {
		q.flushGapLocked(s, at)
	}
	q.closed = true
	q.wake()
}

// take returns the waiting chunks and whether the queue is closed. The
// bytes stay counted against the limit until done is called for them.
func (q *queue) take() ([]chunk, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	items := q.items
	q.items, q.spare = q.spare, nil
	q.armed = false
	return items, q.closed
}

// recycle gives back the slice take returned, once its chunks are done.
func (q *queue) recycle(items []chunk) {
	if cap(items) == 0 || cap(items) > 4096 {
		return
	}
	clear(items)
	q.mu.Lock()
	if q.spare == nil {
		q.spare = items[:0]
	}
	q.mu.Unlock()
}

// waiting reports chunks queued and not taken yet.
func (q *queue) waiting() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.items) > 0
}

// done releases n bytes taken earlier.
func (q *queue) done(n int) {
	q.mu.Lock()
	q.bytes -= n
	q.mu.Unlock()
	select {
	case q.space <- struct{}{}:
	default:
	}
}
