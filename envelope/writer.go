package envelope

import (
	"errors"
	"fmt"
	"io"
	"sync"
	"syscall"
	"time"
)

// DefaultFlushInterval bounds how long a record waits in the buffer before
// it reaches the file: a kill -9 of the writing process loses at most about
// this much.
const DefaultFlushInterval = 50 * time.Millisecond

// flushThreshold is the buffered size at which Write flushes at once.
const flushThreshold = 256 << 10

// WriterOptions configure a Writer.
type WriterOptions struct {
	// CaptureID is stamped on every record (a ULID; see NewCaptureID).
	CaptureID string
	// Now is the clock for timestamps; time.Now when nil.
	Now func() time.Time
	// FlushInterval overrides DefaultFlushInterval; a negative value
	// disables the background flush (every Write then flushes itself).
	FlushInterval time.Duration
}

// Writer writes records to an underlying writer. It is safe for concurrent
// use: records get gapless sequence numbers in the order their Write calls
// take the lock, and each record reaches the underlying writer inside one
// Write call that carries only whole lines.
type Writer struct {
	mu       sync.Mutex
	w        io.Writer
	opts     WriterOptions
	buf      []byte
	seq      int64
	err      error
	closed   bool
	stop     chan struct{}
	done     chan struct{}
	counts   map[Stage]int64
	scratchR Record
	// head is every record's schemaVersion and captureId, encoded once.
	head []byte
}

// NewWriter returns a Writer on w. When w has a Sync method (an *os.File),
// Close calls it.
func NewWriter(w io.Writer, opts WriterOptions) *Writer {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.FlushInterval == 0 {
		opts.FlushInterval = DefaultFlushInterval
	}
	wr := &Writer{w: w, opts: opts, counts: map[Stage]int64{}, head: appendRecordHead(nil, SchemaVersion, opts.CaptureID)}
	if opts.FlushInterval > 0 {
		wr.stop = make(chan struct{})
		wr.done = make(chan struct{})
		go wr.flushLoop()
	}
	return wr
}

func (w *Writer) flushLoop() {
	defer close(w.done)
	t := time.NewTicker(w.opts.FlushInterval)
	defer t.Stop()
	for {
		select {
		case <-w.stop:
			return
		case <-t.C:
			w.mu.Lock()
			if len(w.buf) > 0 && w.err == nil {
				w.flushLocked()
			}
			w.mu.Unlock()
		}
	}
}

// ErrClosed is returned by Write after Close.
var ErrClosed = errors.New("envelope writer is closed")

// Write stamps r with the schema version, capture id, the next sequence
// number and (when empty) the current time, and queues it. It returns the
// sequence number given. r itself is not modified.
//
// A write error of the underlying writer is sticky: it is returned by this
// and every later call.
func (w *Writer) Write(r *Record) (int64, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return 0, ErrClosed
	}
	if w.err != nil {
		return 0, w.err
	}
	w.seq++
	rec := &w.scratchR
	*rec = *r
	rec.SchemaVersion = SchemaVersion
	rec.CaptureID = w.opts.CaptureID
	rec.Sequence = w.seq
	if rec.Timestamp == "" {
		rec.Timestamp = FormatTimestamp(w.opts.Now())
	}
	start := len(w.buf)
	if start > 0 && len(rec.Payload) >= flushThreshold {
		// A huge record goes out alone (below): what is queued goes first,
		// now, so the record is built in the empty buffer rather than
		// after the others and copied out of it twice.
		if err := w.flushLocked(); err != nil {
			*rec = Record{}
			w.counts[r.Stage]++
			return w.seq, err
		}
		start = 0
	}
	w.buf = appendRecordAfterID(append(w.buf, w.head...), rec)
	*rec = Record{}
	w.counts[r.Stage]++
	if len(w.buf) >= flushThreshold {
		// A huge record goes out alone so no write mixes it with a
		// half-built buffer; everything before it goes first.
		if start > 0 && len(w.buf)-start >= flushThreshold {
			line := append([]byte(nil), w.buf[start:]...)
			w.buf = w.buf[:start]
			if err := w.flushLocked(); err != nil {
				return w.seq, err
			}
			w.buf = append(w.buf, line...)
		}
		if err := w.flushLocked(); err != nil {
			return w.seq, err
		}
	} else if w.opts.FlushInterval < 0 {
		if err := w.flushLocked(); err != nil {
			return w.seq, err
		}
	}
	return w.seq, nil
}

func (w *Writer) flushLocked() error {
	if len(w.buf) == 0 {
		return nil
	}
	_, err := w.w.Write(w.buf)
	if err != nil {
		w.err = fmt.Errorf("write capture: %w", err)
	}
	if cap(w.buf) > 4*flushThreshold {
		w.buf = nil
	} else {
		w.buf = w.buf[:0]
	}
	return w.err
}

// Flush writes out every queued record.
func (w *Writer) Flush() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return w.err
	}
	return w.flushLocked()
}

// Sequence returns the last sequence number given out.
func (w *Writer) Sequence() int64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.seq
}

// Counts returns how many records were written per stage.
func (w *Writer) Counts() map[Stage]int64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := make(map[Stage]int64, len(w.counts))
	for k, v := range w.counts {
		out[k] = v
	}
	return out
}

// Err returns the sticky write error, if any.
func (w *Writer) Err() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
}

// Close flushes, stops the background flush and syncs the underlying file
// when it can. It does not close the underlying writer.
func (w *Writer) Close() error {
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return w.err
	}
	w.closed = true
	w.mu.Unlock()
	if w.stop != nil {
		close(w.stop)
		<-w.done
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err == nil {
		w.flushLocked()
	}
	if s, ok := w.w.(interface{ Sync() error }); ok && w.err == nil {
		// A pipe, FIFO or terminal cannot be synced (EINVAL); there is
		// nothing on disk to make durable then.
		if err := s.Sync(); err != nil && !errors.Is(err, syscall.EINVAL) && !errors.Is(err, syscall.ENOTSUP) {
			w.err = fmt.Errorf("sync capture: %w", err)
		}
	}
	return w.err
}

// FormatTimestamp renders t as RFC 3339 with milliseconds in UTC, the form
// of the timestamp field.
func FormatTimestamp(t time.Time) string {
	return t.UTC().Format("2006-01-02T15:04:05.000Z07:00")
}
