package source

import (
	"context"
	"fmt"
	"io"
	"sync"

	"github.com/evcap/evcap/event"
	"github.com/evcap/evcap/internal/jsonpick"
)

// Normalize feeds every native line of in to n and calls emit with the
// events, in order, and last with n.End()'s: what this loop does,
//
//	for {
//		ref, line, err := in.Next() // io.EOF ends the loop; any other error is returned
//		emit(n.Line(ref, line))     // LineValid for a line known to be JSON
//	}
//	emit(n.End())
//
// with the same events in the same order (emit is called with each
// line's events but not with an empty slice) and the same errors: a read error (wrapped as "read NAME: …") after the events of
// every line before it, emit's first error as it is, ctx.Err() once ctx
// is done (checked for every line). n.End is not called after an error.
//
// The work is split so that two cores overlap it: one goroutine reads
// each line, copies it and checks that it is JSON; another normalizes;
// the caller's goroutine runs emit (which encodes and writes, for evcap
// normalize). A line is handed to the normalizer as LineOwned when n is an
// event.OwnedLiner and the line is JSON (the copy is never changed, so
// the normalizer keeps strings of it without copying them), else as
// LineValid or Line; when n is an event.InPlaceLiner, always as LineValid
// or Line, copied into a buffer its batch reuses (n copies only what it
// keeps, and no fresh memory is touched for each line). Lines and events
// in flight are bounded: at most 768 KiB of lines and one longer line, and
// their events, beyond what the normalizer keeps. The longer line does
// not wait for the lines before it to be emitted, nor the lines after it
// for it: while one goroutine is at a tool output of many MiB, the others
// go on with the lines around it. Lines go
// from one goroutine to the next in batches of up to 128 KiB: each hand-off
// can wake a parked thread, which took tens of microseconds here: with
// batches of 32 KiB the normalizer spent a quarter of its time runnable
// but not running, and evcap normalize of 53 MB of short lines took 137
// ms where it takes 110 with these.
// When in.Live, a batch is also handed on whenever the input is about to
// be read again, however few lines it holds, so that no line waits for
// lines that have not been written yet; in.Drained is called once its
// events are emitted.
//
// emit's slice is valid only during the call, and so are the Cause
// slices of its events (the memory of a batch's events is reused once
// they are emitted, when n is an event.SlabUser): copy a Cause to keep
// it. When Normalize returns early (an error, ctx done), the reading
// goroutine may still be inside a read of in's reader that blocks (a
// quiet pipe); it stops when that read returns, without reading further
// or calling n or emit. Do not use in after an early return but to close
// it.
func (in *Native) Normalize(ctx context.Context, n event.Normalizer, emit func([]event.Event) error) error {
	return in.normalize(ctx, n, &pipeline{}, emit)
}

// normalize is Normalize with the pipeline p (zero, for the tests to look
// at after).
func (in *Native) normalize(ctx context.Context, n event.Normalizer, p *pipeline, emit func([]event.Event) error) error {
	p.in, p.n, p.done = in, n, make(chan struct{})
	p.vl, _ = n.(event.ValidLiner)
	p.ol, _ = n.(event.OwnedLiner)
	p.su, _ = n.(event.SlabUser)
	if _, ok := n.(event.InPlaceLiner); ok {
		// LineValid on the batch's reused buffer beats LineOwned on a
		// fresh copy: the normalizer copies only what it keeps.
		p.ol, p.inPlace = nil, true
	}
	p.budget.cond.L = &p.budget.mu
	p.budget.limit = pipeBytes
	p.free = make(chan *pipeBatch, pipeBytes/pipeBatchBytes+pipeDepth+4)
	lines := make(chan *pipeBatch, pipeBytes/pipeBatchBytes)
	events := make(chan *pipeBatch, pipeDepth)
	var wg sync.WaitGroup
	wg.Add(1)
	go p.read(ctx, lines)
	go func() {
		defer wg.Done()
		p.normalize(lines, events)
	}()
	err := p.emit(ctx, events, emit)
	p.stop()
	wg.Wait() // the normalizer; the reader may be blocked in a read
	return err
}

const (
	// pipeBytes bounds the bytes of the lines in flight, besides one
	// longer line. With 1 MiB, peak RSS of a 200 MB run was 1.50 times a
	// 1 MB run's (the bound); the six batches of 768 KiB held what
	// reached the normalizer before the reader could run ahead, 1.46.
	pipeBytes = 768 << 10
	// pipeLines is how many lines a batch holds at most, and pipeBatchBytes
	// how many bytes (a longer line ends its batch).
	pipeLines      = 1024
	pipeBatchBytes = 128 << 10
	// pipeDepth is how many batches of events wait for emit; the reader
	// may be as many batches ahead as pipeBytes holds, so that it reads
	// on while the normalizer is at a longer line.
	pipeDepth = 2
	// batchBufSize is the size of a batch's buffer for the copies of its
	// lines (pipeBatchBytes and a last line of a few KiB), and a buffer
	// grown past batchBufMax (for one longer line) is not kept.
	batchBufSize = pipeBatchBytes + 8<<10
	batchBufMax  = 4 * batchBufSize
)

// pipeBatch is a run of consecutive lines on their way through the
// pipeline: read and copied (lines, refs, valid), then normalized (evs),
// then emitted. err, set on the last batch only, ends the stream: io.EOF,
// a read error or ctx's error.
type pipeBatch struct {
	refs  []int64
	lines [][]byte
	valid []bool
	// bytes counts the lines of up to pipeBytes, long the bytes of the
	// longer line the batch ends with (0: none).
	bytes int
	long  int
	// handedOn says the reader sent the batch before reading more of a
	// live input (see Native.Live): once its events are emitted, every
	// line read so far has been.
	handedOn bool
	// evs holds each line's events as the normalizer returned them
	// (copying them into one slice cost write barriers on every pointer).
	evs [][]event.Event
	err error
	// buf holds the copies of the batch's lines for an event.InPlaceLiner,
	// reused with the batch: such a normalizer keeps no byte of it.
	buf []byte
	// slab holds the events of an event.SlabUser, reused with the batch
	// once they are emitted.
	slab event.Slab
}

type pipeline struct {
	in *Native
	n  event.Normalizer
	vl event.ValidLiner
	ol event.OwnedLiner
	su event.SlabUser
	// inPlace says n is an event.InPlaceLiner: lines are copied into
	// their batch's buf.
	inPlace bool
	free    chan *pipeBatch
	// done is closed when the pipeline stops (an error, the end).
	done     chan struct{}
	stopOnce sync.Once
	budget   pipeBudget
}

// pipeBudget counts the bytes of lines in flight, from their copy to the
// emit of their events: used of those up to limit bytes long, which take
// at most limit in all, and long of the one longer line in flight.
type pipeBudget struct {
	mu     sync.Mutex
	cond   sync.Cond
	used   int
	long   int
	limit  int
	closed bool
	// peak is the most bytes ever in flight, for the tests.
	peak int
}

// acquire waits until n more bytes fit (or nothing is in flight) and
// takes them; false once the pipeline stopped.
func (b *pipeBudget) acquire(n int) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	for b.used > 0 && b.used+n > b.limit && !b.closed {
		b.cond.Wait()
	}
	if b.closed {
		return false
	}
	b.used += n
	b.peak = max(b.peak, b.used+b.long)
	return true
}

// acquireLong waits until no longer line is in flight and takes n bytes
// for one; false once the pipeline stopped.
func (b *pipeBudget) acquireLong(n int) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	for b.long > 0 && !b.closed {
		b.cond.Wait()
	}
	if b.closed {
		return false
	}
	b.long = n
	b.peak = max(b.peak, b.used+b.long)
	return true
}

// tryAcquire takes n bytes if they fit without waiting.
func (b *pipeBudget) tryAcquire(n int) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed || (b.used > 0 && b.used+n > b.limit) {
		return false
	}
	b.used += n
	b.peak = max(b.peak, b.used+b.long)
	return true
}

// tryAcquireLong takes n bytes for a longer line if none is in flight.
func (b *pipeBudget) tryAcquireLong(n int) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed || b.long > 0 {
		return false
	}
	b.long = n
	b.peak = max(b.peak, b.used+b.long)
	return true
}

// release gives back n bytes of lines, and the longer line's when long.
func (b *pipeBudget) release(n int, long bool) {
	b.mu.Lock()
	b.used -= n
	if long {
		b.long = 0
	}
	b.mu.Unlock()
	b.cond.Signal()
}

func (b *pipeBudget) close() {
	b.mu.Lock()
	b.closed = true
	b.mu.Unlock()
	b.cond.Broadcast()
}

func (p *pipeline) stop() {
	p.stopOnce.Do(func() {
		close(p.done)
		p.budget.close()
	})
}

func (p *pipeline) batch() *pipeBatch {
	select {
	case b := <-p.free:
		return b
	default:
		b := &pipeBatch{}
		b.slab.Reset() // from the first round on, its arrays are kept
		return b
	}
}

// recycle empties b (dropping its references to lines and events) and
// keeps it for reuse.
func (p *pipeline) recycle(b *pipeBatch) {
	clear(b.lines)
	clear(b.evs)
	b.refs, b.lines, b.valid, b.evs = b.refs[:0], b.lines[:0], b.valid[:0], b.evs[:0]
	if cap(b.buf) > batchBufMax {
		b.buf = nil // the copy of a longer line than usual
	}
	b.buf = b.buf[:0]
	b.bytes, b.long, b.err, b.handedOn = 0, 0, nil, false
	b.slab.Reset()
	select {
	case p.free <- b:
	default:
	}
}

// send hands b on, false once the pipeline stopped.
func (p *pipeline) send(ch chan<- *pipeBatch, b *pipeBatch) bool {
	select {
	case ch <- b:
		return true
	case <-p.done:
		return false
	}
}

// read is the reading goroutine: it reads, copies and checks lines and
// sends them on in batches; the last batch carries the error that ended
// the stream.
func (p *pipeline) read(ctx context.Context, out chan<- *pipeBatch) {
	b := p.batch()
	stopped := false
	if p.in.Live {
		// Before the input is read again, the lines read so far go on:
		// the read may wait for the writer's next line.
		p.in.refill.before = func() {
			if stopped || len(b.lines) == 0 {
				return
			}
			b.handedOn = true
			if !p.send(out, b) {
				stopped = true
			}
			b = p.batch()
		}
		defer func() { p.in.refill.before = nil }()
	}
	for {
		if err := ctx.Err(); err != nil {
			b.err = err
			p.send(out, b)
			return
		}
		ref, line, err := p.in.Next()
		if stopped {
			return
		}
		if err != nil {
			if err != io.EOF {
				err = fmt.Errorf("read %s: %w", p.in.Name, err)
			}
			b.err = err
			p.send(out, b)
			return
		}
		valid := p.vl != nil && (p.in.Validated() || jsonpick.Valid(line))
		long := len(line) > pipeBytes
		if !long && !p.budget.tryAcquire(len(line)) || long && !p.budget.tryAcquireLong(len(line)) {
			if len(b.lines) > 0 {
				if !p.send(out, b) {
					return
				}
				b = p.batch()
			}
			if !long && !p.budget.acquire(len(line)) || long && !p.budget.acquireLong(len(line)) {
				return
			}
		}
		if p.inPlace && !p.in.fresh && len(b.lines) > 0 && cap(b.buf)-len(b.buf) < len(line) {
			// The copy would not fit the batch's buffer: a new batch
			// (appending would move the lines already copied).
			if !p.send(out, b) {
				return
			}
			b = p.batch()
		}
		b.refs = append(b.refs, ref)
		switch {
		case p.in.fresh: // nothing else refers to it
		case p.inPlace:
			if cap(b.buf) == 0 {
				b.buf = make([]byte, 0, max(batchBufSize, len(line)))
			}
			start := len(b.buf)
			b.buf = append(b.buf, line...)
			line = b.buf[start:len(b.buf):len(b.buf)]
		default:
			line = append(make([]byte, 0, len(line)), line...)
		}
		b.lines = append(b.lines, line)
		b.valid = append(b.valid, valid)
		if long {
			b.long = len(line)
		} else {
			b.bytes += len(line)
		}
		if long || len(b.lines) >= pipeLines || b.bytes >= pipeBatchBytes {
			if !p.send(out, b) {
				return
			}
			b = p.batch()
		}
	}
}

// normalize is the normalizing goroutine: it turns each batch of lines
// into events and, after the last line, adds End's.
func (p *pipeline) normalize(in <-chan *pipeBatch, out chan<- *pipeBatch) {
	if p.su != nil {
		defer p.su.UseSlab(nil) // the batches' slabs are reused
	}
	for {
		var b *pipeBatch
		select {
		case b = <-in:
		case <-p.done:
			return
		}
		if p.su != nil {
			p.su.UseSlab(&b.slab)
		}
		for i, line := range b.lines {
			var evs []event.Event
			switch {
			case b.valid[i] && p.ol != nil:
				evs = p.ol.LineOwned(b.refs[i], line)
			case b.valid[i]:
				evs = p.vl.LineValid(b.refs[i], line)
			default:
				evs = p.n.Line(b.refs[i], line)
			}
			if len(evs) > 0 {
				b.evs = append(b.evs, evs)
			}
		}
		if b.err == io.EOF {
			b.evs = append(b.evs, p.n.End())
		}
		last := b.err != nil // b is emit's once sent
		if !p.send(out, b) || last {
			return
		}
	}
}

// emit runs on the caller's goroutine: it hands each batch's events to
// fn and returns the error that ended the stream (nil at its end).
func (p *pipeline) emit(ctx context.Context, in <-chan *pipeBatch, fn func([]event.Event) error) error {
	for b := range in {
		if err := ctx.Err(); err != nil {
			return err
		}
		for _, evs := range b.evs {
			if len(evs) == 0 {
				continue
			}
			if err := fn(evs); err != nil {
				return err
			}
		}
		err, handedOn := b.err, b.handedOn
		p.budget.release(b.bytes, b.long > 0)
		p.recycle(b)
		if handedOn && p.in.Drained != nil {
			if err := p.in.Drained(); err != nil {
				return err
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
	return nil // not reached: the normalizer ends with the batch that carries an error
}
