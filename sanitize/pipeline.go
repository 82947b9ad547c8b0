package sanitize

import (
	"context"
	"errors"
	"io"
	"runtime"
	"sync"

	"github.com/evcap/evcap/envelope"
	"github.com/evcap/evcap/internal/jsonwalk"
	"github.com/evcap/evcap/redact"
)

// Sanitize runs in three stages so that a machine with two or more cores
// works on several records at once, while the output stays what one
// goroutine doing everything in order would write (same bytes, same
// order, same errors):
//
//   - reading (two goroutines): one reads the records (rawStage, the
//     only one that waits on the input), the other takes each apart,
//     learns the project root it may name, and has the providers' delta
//     trackers say whether it carries a delta or ends blocks (prepStage).
//     All of that depends only on the records before it, in order.
//   - redacting (one goroutine per core): the payload's redaction by the
//     rules (redact.Redactor.JSON, TextValue). It depends on the record
//     alone and on the redactor of when it was read, so records are
//     redacted in any order, each batch by one worker.
//   - finishing (the caller's goroutine): everything with state that the
//     output depends on, in input order: the blocks' streams, pseudonyms
//     in order of first appearance, times, the envelope fields, and the
//     writing.
//
// The stages hand records on in batches; the bytes of the records between
// reading and finishing are bounded (prepBudget, one record more when a
// single one is larger), so memory stays bounded by the longest lines.
// The context is checked before each record is read and before each is
// finished.

// prepBudget bounds the payload bytes of records read but not finished.
const prepBudget = 4 << 20

// maxCharge is the most of the budget one record takes: a record longer
// than the budget (a 10 MB tool result) used to stop the reading until
// every record before it was finished and to keep the records after it
// from being read until it was, so one core redacted it while the other
// waited. Charged less, it goes in once the records in flight come to
// prepBudget-maxCharge, and records after it are read and redacted while
// it is, up to the budget. Only one record is charged less at a time, so
// the bytes in flight stay within prepBudget plus one long record.
const maxCharge = prepBudget / 4

// prepBatchItems and prepBatchBytes bound a batch; a batch is also handed
// on early when the stages after reading are idle.
const (
	prepBatchItems = 64
	prepBatchBytes = 256 << 10
)

type workKind uint8

const (
	workNone workKind = iota // nothing to redact now (an error, or a line its block's stream redacts)
	workText                 // a text payload, redacted with TextValue
	workJSON                 // a JSON body, redacted with JSON
)

// prepped is a record as the reading stage passes it on, and then the
// redaction of its payload.
type prepped struct {
	rec  *envelope.Record
	err  error // reading's error; nothing else is set
	line int64

	// addErr is the error add returns for this record (learning the
	// project, a string payload that does not decode).
	addErr error
	red    *redact.Redactor // the redactor of when the record was read
	kind   payloadKind
	prefix string
	body   []byte
	binary bool
	utf    []envelope.Redaction
	d      delta
	// flushText: a text line too long to join its block ends it.
	flushText bool
	work      workKind

	// The redacting stage's results.
	walkErr  error // walkable's error (workJSON)
	out      []byte
	changed  bool
	findings []redact.Finding
	redErr   error // JSON's error
	// cands are the tokens of out finishing may rewrite (cands.go);
	// candErr is the error walking out to find them gave.
	cands   []cand
	candErr error
}

type prepBatch struct {
	items  []prepped
	size   int
	charge int           // the budget its records took
	long   bool          // one of them was charged maxCharge for more
	done   chan struct{} // closed when every item is redacted
}

// budget counts the bytes of records between reading and finishing.
type budget struct {
	mu    sync.Mutex
	cond  sync.Cond
	used  int
	limit int
	stop  bool
	long  bool // a record charged maxCharge for more is in flight
}

func newBudget(limit int) *budget {
	b := &budget{limit: limit}
	b.cond.L = &b.mu
	return b
}

func (b *budget) fits(n int) bool { return b.used == 0 || b.used+n <= b.limit }

// take waits until a record of n bytes fits and takes its charge: n, or
// maxCharge for a longer record when no other such record is in flight
// (long). ok is false when halted.
func (b *budget) take(n int) (charge int, long, ok bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for !b.stop {
		if n > maxCharge && !b.long && b.fits(maxCharge) {
			b.used += maxCharge
			b.long = true
			return maxCharge, true, true
		}
		if b.fits(n) {
			b.used += n
			return n, false, true
		}
		b.cond.Wait()
	}
	return 0, false, false
}

// give returns the charge of finished records (and the long record's
// place, when one of them had it).
func (b *budget) give(n int, long bool) {
	b.mu.Lock()
	b.used -= n
	if long {
		b.long = false
	}
	b.cond.Broadcast()
	b.mu.Unlock()
}

func (b *budget) halt() {
	b.mu.Lock()
	b.stop = true
	b.cond.Broadcast()
	b.mu.Unlock()
}

// prepPipe runs the reading and redacting stages.
type prepPipe struct {
	raw     chan rawRec
	ordered chan *prepBatch
	work    chan *prepBatch
	free    chan *prepBatch // batches finished with, for reuse
	quit    chan struct{}
	bud     *budget
	reading sync.WaitGroup // rawStage, which may block in a Read
	workers sync.WaitGroup // prepStage and the redacting stage
	cur     *prepBatch
	next    int
	stopped bool
}

// startPrep starts reading rd (after the records already read ahead) and
// redacting.
func (s *sanitizer) startPrep(ctx context.Context, rd *envelope.Reader, ahead []held) *prepPipe {
	workers := max(1, runtime.GOMAXPROCS(0))
	p := &prepPipe{
		raw:     make(chan rawRec, 2*prepBatchItems),
		ordered: make(chan *prepBatch, 2*workers+2),
		work:    make(chan *prepBatch, 2*workers+2),
		free:    make(chan *prepBatch, 4*workers+6),
		quit:    make(chan struct{}),
		bud:     newBudget(prepBudget),
	}
	p.reading.Add(1)
	p.workers.Add(1 + workers)
	go func() {
		defer p.reading.Done()
		rawStage(ctx, rd, ahead, p)
	}()
	go func() {
		defer p.workers.Done()
		s.prepStage(p)
	}()
	for range workers {
		go func() {
			defer p.workers.Done()
			var vw jsonwalk.Walker
			var cw candWalk
			for b := range p.work {
				for i := range b.items {
					select {
					case <-p.quit:
					default:
						b.items[i].redact(&vw, &cw, s.opts.PrivateText)
					}
				}
				close(b.done)
			}
		}()
	}
	return p
}

// stop ends the stages and waits for them, but for rawStage, which it
// waits for only when told to (at the end of the input, where it has
// ended): after an error it may be inside a Read that returns only when
// more input comes (a pipe whose writer is idle), and it ends by itself
// once that returns, touching nothing the caller sees.
func (p *prepPipe) stop(waitReading bool) {
	if !p.stopped {
		p.stopped = true
		close(p.quit)
		p.bud.halt()
		p.workers.Wait()
	}
	if waitReading {
		p.reading.Wait()
	}
}

// send hands a batch to the workers and to the finishing stage; false
// when the pipe is stopping.
func (p *prepPipe) send(b *prepBatch) bool {
	select {
	case p.work <- b:
	case <-p.quit:
		return false
	}
	select {
	case p.ordered <- b:
		return true
	case <-p.quit:
		return false
	}
}

// rawRec is a record (or reading's error) as the reader hands it to the
// reading stage, with the bytes it takes of the budget.
type rawRec struct {
	h      held
	size   int
	charge int  // the budget it took
	long   bool // charged maxCharge for more
}

// rawStage reads records (first those read ahead) and hands them to the
// reading stage, taking their bytes of the budget first, until the input
// ends, reading fails, or ctx is done. It is the only goroutine that may
// block in a Read of the input: the stages after it never wait for it
// while they hold records (prepStage hands on its batch before waiting).
func rawStage(ctx context.Context, rd *envelope.Reader, ahead []held, p *prepPipe) {
	defer close(p.raw)
	for {
		if context.Cause(ctx) != nil {
			return
		}
		var h held
		if len(ahead) > 0 {
			h, ahead[0] = ahead[0], held{}
			ahead = ahead[1:]
		} else {
			h.rec, h.err = rd.Next()
			h.line = rd.Line()
		}
		if h.err == io.EOF {
			return
		}
		size := 256
		if h.rec != nil {
			size += len(h.rec.Payload)
		}
		charge, long, ok := p.bud.take(size)
		if !ok {
			return
		}
		select {
		case p.raw <- rawRec{h: h, size: size, charge: charge, long: long}:
		case <-p.quit:
			return
		}
		// Sanitizing stops at a reading error; a torn last line is
		// followed by the end.
		if h.err != nil && !errors.Is(h.err, envelope.ErrTornLine) {
			return
		}
	}
}

// prepStage takes records apart in input order (prep) and hands them on
// in batches until the input ends or a record sanitizing stops at.
func (s *sanitizer) prepStage(p *prepPipe) {
	defer close(p.ordered)
	defer close(p.work)
	b := p.batch()
	flush := func() bool {
		if len(b.items) == 0 {
			return true
		}
		ok := p.send(b)
		b = p.batch()
		return ok
	}
	for {
		var r rawRec
		var ok bool
		select {
		case r, ok = <-p.raw:
		default:
			// Nothing read yet: what is held goes on before waiting.
			if !flush() {
				return
			}
			select {
			case r, ok = <-p.raw:
			case <-p.quit:
				return
			}
		}
		if !ok {
			flush()
			return
		}
		it := s.prep(r.h)
		if n := len(b.items); n < cap(b.items) {
			it.cands = b.items[:n+1][n].cands[:0] // the array the slot kept
		}
		b.items = append(b.items, it)
		b.size += r.size
		b.charge += r.charge
		b.long = b.long || r.long
		if it.addErr != nil || it.err != nil && !errors.Is(it.err, envelope.ErrTornLine) {
			flush() // sanitizing stops at this record
			return
		}
		if len(b.items) >= prepBatchItems || b.size >= prepBatchBytes || (len(p.ordered) == 0 && len(p.work) == 0) {
			if !flush() {
				return
			}
		}
	}
}

// batch is an empty batch: one the finishing stage is done with, or a
// new one.
func (p *prepPipe) batch() *prepBatch {
	select {
	case b := <-p.free:
		b.done = make(chan struct{})
		return b
	default:
		return &prepBatch{items: make([]prepped, 0, prepBatchItems), done: make(chan struct{})}
	}
}

// prep is the reading stage's part of add: it takes the record apart,
// learns the project root, and observes its delta.
func (s *sanitizer) prep(h held) prepped {
	it := prepped{rec: h.rec, err: h.err, line: h.line}
	if h.err != nil {
		return it
	}
	rec := h.rec
	kind, prefix, body := split(rec)
	text, runs, n, binary := binaryLine(rec)
	if binary {
		// A line that was not valid UTF-8: written back as text, so the
		// sanitized capture is readable and its text is redacted.
		kind, prefix, body = kindText, "", text
		if runs > 0 {
			it.utf = append(it.utf, envelope.Redaction{Rule: RuleInvalidUTF8, Pointer: "", Count: runs, OriginalLength: n})
		}
	}
	it.kind, it.prefix, it.body, it.binary = kind, prefix, body, binary
	if err := s.learnProject(rec, body); err != nil {
		it.addErr = err
		return it
	}
	it.red = s.red
	if kind == kindText && body == nil {
		// A string payload that does not decode cannot be rewritten.
		it.addErr = errors.New("payload string does not decode")
		return it
	}
	d := s.obs.observe(rec.Provider, rec.Stage, kind, marker(prefix), body, false)
	textLine := kind == kindText && rec.Stage == envelope.StageNativeIn &&
		(rec.EventType == envelope.EventStderr || rec.EventType == envelope.EventNonJSON)
	if textLine && len(body) <= min(maxStreamedLine, s.maxString()) {
		// A text line joins its stream's text block, with its newline, so
		// a secret spanning lines (a private key block) is replaced whole.
		d = delta{key: "text|" + rec.EventType, text: string(body) + "\n", isDelt: true}
	} else if textLine {
		it.flushText = true
	}
	it.d = d
	switch {
	case d.isDelt && kind == kindText:
		// The block's stream redacts the line.
	case kind == kindText:
		it.work = workText
	default:
		it.work = workJSON
	}
	return it
}

// redact is the redacting stage's part: what the rules replace in the
// payload.
func (it *prepped) redact(vw *jsonwalk.Walker, cw *candWalk, private bool) {
	switch it.work {
	case workText:
		// TextValue also cuts a string JSON would cut, so a text line
		// is no longer than a JSON string may be.
		it.out, it.findings = it.red.TextValue(it.body)
		it.changed = len(it.findings) > 0
	case workJSON:
		// It can fail only on JSON the reader (or split) accepted that
		// the walker does not.
		if err := walkable(vw, it.body); err != nil {
			it.walkErr = err
			return
		}
		it.redactJSON(vw, cw, private)
	}
}

// take returns the next record, redacted, in input order; nil at the end
// of the input or when ctx is done.
func (p *prepPipe) take(ctx context.Context) *prepped {
	for p.cur == nil || p.next == len(p.cur.items) {
		if b := p.cur; b != nil {
			p.bud.give(b.charge, b.long)
			p.cur = nil
			for i := range b.items {
				// The candidates' array goes back to prep (add swapped
				// in one finishing is done with).
				c := b.items[i].cands[:0]
				b.items[i] = prepped{cands: c}
			}
			b.items, b.size, b.charge, b.long = b.items[:0], 0, 0, false
			select {
			case p.free <- b:
			default:
			}
		}
		var b *prepBatch
		var ok bool
		select {
		case b, ok = <-p.ordered:
		case <-ctx.Done():
			return nil
		}
		if !ok {
			return nil
		}
		select {
		case <-b.done:
		case <-ctx.Done():
			return nil
		}
		p.cur, p.next = b, 0
	}
	it := &p.cur.items[p.next]
	p.next++
	return it
}
