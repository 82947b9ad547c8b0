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
//
// Records travel in batches of up to aheadRecords, and a batch is used
// again once the caller is done with it: a batch holds what the streaming
// replay reads of each record (aheadRec) as values, and their payloads
// copied into one buffer (from envelope.Reader.NextShared, which copies
// nothing itself), so that reading a capture allocates nothing per
// record. A record Next returns, and its Payload, are valid until the
// next call to Next.
type readAhead struct {
	batches chan *aheadBatch
	free    chan *aheadBatch // batches the caller is done with
	keep    func(*envelope.Record) bool
	mu      sync.Mutex
	cond    *sync.Cond
	used    int // payload bytes sent and not yet taken back with done
	stopped bool
	quit    atomic.Bool // stopped, read without the lock on every record
	exited  chan struct{}
	cur     *aheadBatch
	next    int
}

// aheadBatch is a run of records in file order; err, when set, is what
// the reader returned after the last of them (io.EOF at the end).
type aheadBatch struct {
	recs  []aheadRec
	spans []payloadSpan // where each record's payload is in arena
	arena []byte
	bytes int
	err   error
}

// aheadRec is the part of an envelope.Record the streaming replay reads.
type aheadRec struct {
	Sequence  int64
	Stage     envelope.Stage
	EventType string
	// Payload is nil for a record whose payload was not kept.
	Payload []byte
	Cause   []int64
}

// payloadSpan is arena[from:to]; from < 0 for a record whose payload was
// not kept.
type payloadSpan struct{ from, to int }

const (
	aheadBytes   = 1 << 20
	aheadRecords = 256
	// A batch's buffer is dropped rather than kept for the next batch
	// when a huge record has grown it past this.
	keepArena = 4 << 20
)

// newReadAhead reads every record of er, payloads included.
func newReadAhead(ctx context.Context, er *envelope.Reader) *readAhead {
	return newReadAheadKeeping(ctx, er, nil)
}

// newReadAheadKeeping is newReadAhead where only the records keep accepts
// (all when keep is nil) carry their payload; the others come with a nil
// Payload, which spares copying bytes the caller does not look at.
func newReadAheadKeeping(ctx context.Context, er *envelope.Reader, keep func(*envelope.Record) bool) *readAhead {
	a := &readAhead{batches: make(chan *aheadBatch, 4), free: make(chan *aheadBatch, 8), keep: keep, exited: make(chan struct{})}
	a.cond = sync.NewCond(&a.mu)
	go a.run(ctx, er)
	return a
}

func (a *readAhead) run(ctx context.Context, er *envelope.Reader) {
	defer close(a.exited)
	defer close(a.batches)
	b := a.batch()
	for !a.quit.Load() {
		var rec *envelope.Record
		err := context.Cause(ctx)
		if err == nil {
			rec, err = er.NextShared()
		}
		if err == nil {
			b.add(rec, a.keep == nil || a.keep(rec))
			if len(b.recs) < aheadRecords && b.bytes < aheadBytes {
				continue
			}
		}
		b.err = err
		b.seal()
		if !a.take(b.bytes) {
			return
		}
		a.batches <- b
		if err != nil {
			return
		}
		b = a.batch()
	}
}

// batch returns an empty batch, one the caller gave back when there is one.
func (a *readAhead) batch() *aheadBatch {
	select {
	case b := <-a.free:
		clear(b.recs)
		b.recs, b.spans, b.bytes, b.err = b.recs[:0], b.spans[:0], 0, nil
		if cap(b.arena) > keepArena {
			b.arena = nil
		}
		b.arena = b.arena[:0]
		return b
	default:
		return &aheadBatch{recs: make([]aheadRec, 0, aheadRecords), spans: make([]payloadSpan, 0, aheadRecords)}
	}
}

// add appends what the replay reads of rec, which NextShared lent: its
// payload goes into the arena (when kept). Its strings and Cause are the
// reader's to give away.
func (b *aheadBatch) add(rec *envelope.Record, keep bool) {
	span := payloadSpan{-1, -1}
	if keep && rec.Payload != nil {
		span = payloadSpan{len(b.arena), len(b.arena) + len(rec.Payload)}
		b.arena = append(b.arena, rec.Payload...)
		b.bytes += len(rec.Payload)
	}
	b.recs = append(b.recs, aheadRec{Sequence: rec.Sequence, Stage: rec.Stage, EventType: rec.EventType, Cause: rec.Cause})
	b.spans = append(b.spans, span)
}

// seal points each record's Payload into the arena, which no longer grows.
func (b *aheadBatch) seal() {
	for i, s := range b.spans {
		if s.from >= 0 {
			b.recs[i].Payload = b.arena[s.from:s.to:s.to]
		}
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

// Next is envelope.Reader.Next, from the records read ahead; the record is
// valid until the next call.
func (a *readAhead) Next() (*aheadRec, error) {
	for a.cur == nil || a.next >= len(a.cur.recs) {
		if a.cur != nil {
			if a.cur.err != nil {
				return nil, a.cur.err
			}
			a.mu.Lock()
			a.used -= a.cur.bytes
			a.cond.Signal()
			a.mu.Unlock()
			select {
			case a.free <- a.cur:
			default:
			}
			a.cur = nil
		}
		b, ok := <-a.batches
		if !ok {
			// Only after stop, which the caller does not read past.
			return nil, context.Canceled
		}
		a.cur, a.next = b, 0
	}
	rec := &a.cur.recs[a.next]
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
