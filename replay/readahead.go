package replay

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/evcap/evcap/envelope"
)

// readAhead reads and parses a capture's records in a goroutine of its own
// while the caller normalizes and compares the ones before, so that the
// two halves of a streaming replay (envelope parsing, and the normalizer
// with the comparison) use two cores. The records in flight, read but not
// yet taken, hold at most aheadBytes of payload, or a single record when
// one is larger: memory stays bounded by the longest line, as it is
// without the goroutine.
type readAhead struct {
	batches chan aheadBatch
	mu      sync.Mutex
	cond    *sync.Cond
	used    int // payload bytes sent and not yet taken back with done
	stopped bool
	quit    atomic.Bool // stopped, read without the lock on every record
	exited  chan struct{}
	cur     aheadBatch
	next    int
}

// aheadBatch is a run of records in file order; err, when set, is what
// the reader returned after the last of them (io.EOF at the end).
type aheadBatch struct {
	recs  []*envelope.Record
	bytes int
	err   error
}

const (
	aheadBytes   = 1 << 20
	aheadRecords = 256
)

func newReadAhead(ctx context.Context, er *envelope.Reader) *readAhead {
	a := &readAhead{batches: make(chan aheadBatch, 4), exited: make(chan struct{})}
	a.cond = sync.NewCond(&a.mu)
	go a.run(ctx, er)
	return a
}

func (a *readAhead) run(ctx context.Context, er *envelope.Reader) {
	defer close(a.exited)
	defer close(a.batches)
	var b aheadBatch
	for !a.quit.Load() {
		var rec *envelope.Record
		err := context.Cause(ctx)
		if err == nil {
			rec, err = er.Next()
		}
		if err == nil {
			b.recs = append(b.recs, rec)
			b.bytes += len(rec.Payload)
			if len(b.recs) < aheadRecords && b.bytes < aheadBytes {
				continue
			}
		}
		b.err = err
		if !a.take(b.bytes) {
			return
		}
		a.batches <- b
		if err != nil {
			return
		}
		b = aheadBatch{recs: make([]*envelope.Record, 0, aheadRecords)}
	}
}

// take waits until n more bytes fit in flight (or nothing is in flight);
// false once the consumer stopped.
func (a *readAhead) take(n int) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	for !a.stopped && a.used > 0 && a.used+n > aheadBytes {
		a.cond.Wait()
	}
	a.used += n
	return !a.stopped
}

// Next is envelope.Reader.Next, from the records read ahead.
func (a *readAhead) Next() (*envelope.Record, error) {
	for a.next >= len(a.cur.recs) {
		if a.cur.err != nil {
			return nil, a.cur.err
		}
		a.mu.Lock()
		a.used -= a.cur.bytes
		a.cond.Signal()
		a.mu.Unlock()
		b, ok := <-a.batches
		if !ok {
			// Only after stop, which the caller does not read past.
			return nil, context.Canceled
		}
		a.cur, a.next = b, 0
	}
	rec := a.cur.recs[a.next]
	a.cur.recs[a.next] = nil
	a.next++
	return rec, nil
}

// stop ends the goroutine and waits for it, so that the caller may read
// (or seek in) the capture again. The goroutine may be in the middle of a
// read, which stop waits for.
func (a *readAhead) stop() {
	a.quit.Store(true)
	a.mu.Lock()
	a.stopped = true
	a.cond.Broadcast()
	a.mu.Unlock()
	for range a.batches {
	}
	<-a.exited
}
