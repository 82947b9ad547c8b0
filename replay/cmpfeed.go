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
// A queued record's payload and cause are copied into its batch (the
// reader lends them only until its next record), whose arrays are used
// again once the comparer is done with it; the comparer takes them as
// lent for the call, as before. Copying a record costs less than keeping
// the reader's chunk from being read into until the comparer is done
// with it: held chunks would stop the reader from reading ahead (or
// take more memory for more chunks). Events are the caller's
// (Normalizer.Line gives them away).
type cmpFeed struct {
	c     *streamCmp
	cur   *cmpBatch
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
// set, the payload and cause being the batch's bytes and numbers from
// the offsets below; else addGot for each of evs.
type cmpItem struct {
	want               bool
	seq                int64
	payload, payloadTo int
	cause, causeTo     int
	evs                []event.Event
}

// cmpBatch is a run of queued calls and the payloads and causes of their
// records.
type cmpBatch struct {
	items  []cmpItem
	bytes  []byte
	causes []int64
}

const (
	// cmpBatchItems is the most calls a batch holds.
	cmpBatchItems = 128
	// cmpBatchBytes is about the most payload bytes a batch holds (it
	// is sent once over), and cmpKeepBytes the most a batch keeps room
	// for once compared, so that one huge record does not keep its size.
	cmpBatchBytes = 32 << 10
	cmpKeepBytes  = 1 << 20
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

// want queues the normalized_out record rec.
func (f *cmpFeed) want(rec *envelope.Record) {
	b := f.cur
	it := cmpItem{want: true, seq: rec.Sequence, payload: len(b.bytes), cause: len(b.causes)}
	b.bytes = append(b.bytes, rec.Payload...)
	b.causes = append(b.causes, rec.Cause...)
	it.payloadTo, it.causeTo = len(b.bytes), len(b.causes)
	b.items = append(b.items, it)
	if len(b.items) == cmpBatchItems || len(b.bytes) >= cmpBatchBytes {
		f.send()
	}
}

// send hands the current batch to the goroutine and starts another.
func (f *cmpFeed) send() {
	f.todo <- f.cur
	f.cur = <-f.spare
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
					c.addWant(it.seq, b.bytes[it.payload:it.payloadTo], b.causes[it.cause:it.causeTo])
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
		clear(b.items) // drop the references to events
		b.items, b.bytes, b.causes = b.items[:0], b.bytes[:0], b.causes[:0]
		if cap(b.bytes) > cmpKeepBytes {
			b.bytes = nil
		}
		select {
		case f.spare <- b:
		default: // the last batch, sent by finish: spare is full
		}
	}
}
