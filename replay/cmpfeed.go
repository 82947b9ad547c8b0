package replay

import (
	"sync"
	"sync/atomic"

	"github.com/evcap/evcap/envelope"
	"github.com/evcap/evcap/event"
)

// cmpFeed runs a streamCmp on a goroutine of its own, so that comparing
// (encoding each produced event and checking it against its record)
// overlaps reading and normalizing, which stay on the caller's goroutine.
// The caller queues the comparer's calls in the order it would have made
// them (addWant for each normalized_out record, addGot for each event) and
// the goroutine makes them in that order: the comparer sees exactly what
// it saw when it ran inline, and its state (err, diverged, the report) is
// read once finish has returned.
//
// A queued record's payload and cause point into the reader's chunk: the
// batch they are sent in holds that chunk (envelope.Hold) until the
// comparer is done with the batch, when addWant has copied what it keeps.
// A batch holds at most one chunk, so the caller never keeps back more
// than the chunk it is reading from the reader, which needs chunks back to
// read on. Events are the caller's (Normalizer.Line gives them away).
type cmpFeed struct {
	c     *streamCmp
	cur   *cmpBatch
	batch uint64 // the reader's batch cur holds, 0 for none
	todo  chan *cmpBatch
	spare chan *cmpBatch
	done  sync.WaitGroup
	// full mirrors c.gotFull() for the caller, which then normalizes no
	// more lines (the comparer would drop their events).
	full atomic.Bool
	// abort tells the goroutine to drop what is queued unread: the caller
	// is returning early and will not look at the comparer.
	abort   atomic.Bool
	stopped bool
}

// cmpItem is one queued call: addWant(seq, payload, cause) when want is
// set, else addGot for each of evs.
type cmpItem struct {
	want    bool
	seq     int64
	payload []byte
	cause   []int64
	evs     []event.Event
}

type cmpBatch struct {
	items []cmpItem
	hold  envelope.Hold
}

const (
	// cmpBatchItems is the most calls a batch holds.
	cmpBatchItems = 512
	// cmpBatches is how many batches are around: queued, being compared
	// and being filled.
	cmpBatches = 4
)

func newCmpFeed(c *streamCmp) *cmpFeed {
	f := &cmpFeed{c: c, todo: make(chan *cmpBatch, cmpBatches), spare: make(chan *cmpBatch, cmpBatches)}
	for range cmpBatches - 1 {
		f.spare <- &cmpBatch{items: make([]cmpItem, 0, cmpBatchItems)}
	}
	f.cur = &cmpBatch{items: make([]cmpItem, 0, cmpBatchItems)}
	f.done.Add(1)
	go f.run()
	return f
}

// got queues the produced events evs.
func (f *cmpFeed) got(evs []event.Event) {
	if len(evs) == 0 {
		return
	}
	f.cur.items = append(f.cur.items, cmpItem{evs: evs})
	if len(f.cur.items) == cmpBatchItems {
		f.send()
	}
}

// want queues the normalized_out record rec, which er returned last.
func (f *cmpFeed) want(er *envelope.ParallelReader, rec *envelope.Record) {
	if b := er.Batch(); b != f.batch {
		if f.batch != 0 {
			f.send() // a batch holds one chunk
		}
		f.cur.hold, f.batch = er.Hold(), b
	}
	f.cur.items = append(f.cur.items, cmpItem{want: true, seq: rec.Sequence, payload: rec.Payload, cause: rec.Cause})
	if len(f.cur.items) == cmpBatchItems {
		f.send()
	}
}

// send hands the current batch to the goroutine and starts another.
func (f *cmpFeed) send() {
	f.todo <- f.cur
	f.cur, f.batch = <-f.spare, 0
}

// finish sends what is queued and waits until the comparer has made
// every call; the comparer is then the caller's again.
func (f *cmpFeed) finish() {
	if f.stopped {
		return
	}
	f.stopped = true
	f.todo <- f.cur
	f.cur = nil
	close(f.todo)
	f.done.Wait()
}

// stop ends the goroutine without the queued calls (when the caller
// returns early) and releases what the batches hold; after finish it does
// nothing.
func (f *cmpFeed) stop() {
	f.abort.Store(true)
	f.finish()
}

func (f *cmpFeed) run() {
	defer f.done.Done()
	c := f.c
	for b := range f.todo {
		if !f.abort.Load() {
			for i := range b.items {
				it := &b.items[i]
				if it.want {
					c.addWant(it.seq, it.payload, it.cause)
				} else {
					for _, e := range it.evs {
						if c.gotFull() {
							break
						}
						c.addGot(e)
					}
				}
			}
			if c.gotFull() {
				f.full.Store(true)
			}
		}
		b.hold.Release()
		clear(b.items) // drop the references to payloads and events
		b.items, b.hold = b.items[:0], envelope.Hold{}
		select {
		case f.spare <- b:
		default: // the last batch, sent by finish: spare is full
		}
	}
}
