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
}

// queue hands chunks from the readers of the child's pipes to the one
// goroutine that writes the capture, with at most limit bytes waiting.
//
// When the queue is full and the writer is making progress (it released
// bytes within the last stall period), push waits: the reader stops
// reading, the pipe fills, and the backpressure reaches the child, so a
// capture that is merely slower than the child loses nothing. When the
// writer made no progress for a whole stall period (a stuck disk or FIFO),
// push stops waiting and drops: the chunk is counted, and the count is
// queued as a gap mark before the next chunk of that stream that fits, so
// the capture says what it lost instead of losing it silently, and a stuck
// capture never holds up the agent or the --passthrough pipeline for long.
type queue struct {
	mu    sync.Mutex
	items []chunk
	bytes int
	limit int
	// stall is how long a full queue waits for the writer to release
	// bytes before it starts dropping; lastProgress is when it last did.
	stall        time.Duration
	lastProgress time.Time
	space        chan struct{}
	dropped      [numStreams]struct {
		bytes, newlines int64
		endsLine        bool
	}
	closed bool
	notify chan struct{}
	// now stamps each chunk with its arrival time before push can wait.
	now func() time.Time
}

func newQueue(limit int, stall time.Duration, now func() time.Time) *queue {
	return &queue{limit: limit, stall: stall, lastProgress: time.Now(),
		notify: make(chan struct{}, 1), space: make(chan struct{}, 1), now: now}
}

// push queues a copy of data, waiting while the queue is full and the
// writer is still making progress. It reports false when data was dropped.
func (q *queue) push(s stream, data []byte) bool {
	at := q.now()
	q.mu.Lock()
	defer q.mu.Unlock()
	for !q.closed && q.bytes > 0 && q.bytes+len(data) > q.limit {
		wait := q.stall - time.Since(q.lastProgress)
		if wait <= 0 {
			break
		}
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
	if q.bytes > 0 && q.bytes+len(data) > q.limit {
		q.dropped[s].bytes += int64(len(data))
		q.dropped[s].newlines += int64(bytes.Count(data, []byte{'\n'}))
		q.dropped[s].endsLine = len(data) > 0 && data[len(data)-1] == '\n'
		return false
	}
	q.flushGapLocked(s, at)
	q.items = append(q.items, chunk{stream: s, data: append([]byte(nil), data...), at: at})
	q.bytes += len(data)
	q.wake()
	return true
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
	q.items = nil
	return items, q.closed
}

// waiting reports chunks queued and not taken yet.
func (q *queue) waiting() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.items) > 0
}

// done releases n bytes taken earlier: the writer's progress.
func (q *queue) done(n int) {
	q.mu.Lock()
	q.bytes -= n
	q.lastProgress = time.Now()
	q.mu.Unlock()
	select {
	case q.space <- struct{}{}:
	default:
	}
}
