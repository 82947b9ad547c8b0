package record

import (
	"time"

	"github.com/evcap/evcap/envelope"
	"github.com/evcap/evcap/redact"
	"github.com/evcap/evcap/sanitize"
)

// lineRedactor is the one seam between record and the stream redaction of
// stdout lines (sanitize.LineRedactor): lines go in in order and come out
// in the same order, redacted, once no later text can change them.
type lineRedactor interface {
	Push(line []byte) []sanitize.RedactedLine
	// PushStderr takes a stderr line: text with a block of its own, so a
	// private key printed over several stderr lines is held to its END
	// line and replaced whole; it keeps its place among the stdout lines.
	PushStderr(line []byte) []sanitize.RedactedLine
	Flush() []sanitize.RedactedLine
	// Release gives back the lines held only to fill a batch; the
	// pipeline calls it whenever no more input is waiting.
	Release() []sanitize.RedactedLine
	EarlyFlushes() int
	PartialRedactions() int
}

// newLineRedactor is where record chooses the stream redactor. provider is
// the stream's, when known: only its delta tracker then reads the lines
// (instead of every provider's on every line).
//
// Its streams batch (sanitize.LineOptions.Batch): while the child writes
// faster than record redacts, a block's deltas are looked at once per
// lineBatch bytes instead of once per delta, and whenever the pipeline
// has taken all the input there is it releases them (order.settle), so a
// child that writes a line at a time sees no more delay than before.
func newLineRedactor(r *redact.Redactor, o *Options, provider string) lineRedactor {
	return sanitize.NewLineRedactor(r, sanitize.LineOptions{Lookahead: o.Lookahead, MaxHeld: o.MaxHeld, Provider: provider, Batch: lineBatch})
}

// lineBatch is the batch of the line redactor's streams.
const lineBatch = 4 << 10

// arrived is one line of one stream as it arrived, waiting for its turn to
// be written. Stdout and stderr lines wait for the line redactor to
// release them (redacted); stdin lines and requests, which are redacted on
// their own, wait only for the lines that arrived before them, so sequence
// numbers follow arrival across all streams.
type arrived struct {
	stream stream
	at     time.Time
	line   []byte
	ledger []envelope.Redaction
	ready  bool
	// viaRedactor: the line went through the line redactor (stdout, or
	// stderr when there is one) and line and ledger are what it released.
	viaRedactor bool
	// checkedJSON: the redactor released the line unchanged and found it
	// valid JSON (sanitize.RedactedLine.CheckedJSON).
	checkedJSON bool
}

// order keeps the lines that arrived but cannot be written yet, in arrival
// order. With no redactor nothing waits.
type order struct {
	lr lineRedactor
	// queue holds the lines by value, so that a line costs no allocation;
	// a pointer into it is valid during one call of write.
	queue []arrived
	// next indexes the first stdout line in queue that the redactor has
	// not released yet.
	next int
	// now is the line written at once (a pointer to a local would make
	// every line an allocation, since write is a func value).
	now arrived
}

// push takes the next line of stream s (the slice is copied when it has
// to wait) and calls write for every line that is now due, in order.
func (o *order) push(s stream, line []byte, at time.Time, write func(*arrived)) {
	redacted := s == streamStdout || s == streamStderr
	if o.lr == nil || (!redacted && len(o.queue) == 0) {
		o.now = arrived{stream: s, at: at, line: line, ready: true}
		write(&o.now)
		o.now = arrived{}
		return
	}
	if !redacted {
		var cp []byte // nil stays nil: the end of stdin
		if line != nil {
			cp = append([]byte{}, line...)
		}
		o.queue = append(o.queue, arrived{stream: s, at: at, line: cp, ready: true})
		return
	}
	o.queue = append(o.queue, arrived{stream: s, at: at, viaRedactor: true})
	if s == streamStderr {
		o.released(o.lr.PushStderr(line), write)
		return
	}
	o.released(o.lr.Push(line), write)
}

// flush releases every held line.
func (o *order) flush(write func(*arrived)) {
	if o.lr == nil {
		return
	}
	o.released(o.lr.Flush(), write)
}

// settle writes the lines the redactor held only to fill a batch, for
// when no more input is waiting.
func (o *order) settle(write func(*arrived)) {
	if o.lr == nil || len(o.queue) == 0 {
		return
	}
	o.released(o.lr.Release(), write)
}

// released pairs the lines the redactor gave back with the lines waiting
// for them (the redactor keeps the order of all lines pushed, stdout and
// stderr) and writes the front of the queue as far as it is ready.
func (o *order) released(rls []sanitize.RedactedLine, write func(*arrived)) {
	for _, rl := range rls {
		for o.next < len(o.queue) && !o.queue[o.next].viaRedactor {
			o.next++
		}
		if o.next == len(o.queue) {
			// The redactor released a line it was never given: impossible
			// by its contract; write it rather than lose it.
			s := streamStdout
			if rl.Stderr {
				s = streamStderr
			}
			write(&arrived{stream: s, line: rl.Line, ledger: rl.Ledger, ready: true, viaRedactor: true})
			continue
		}
		a := &o.queue[o.next]
		a.line, a.ledger, a.ready, a.checkedJSON = rl.Line, rl.Ledger, true, rl.CheckedJSON
		o.next++
	}
	n := 0
	for n < len(o.queue) && o.queue[n].ready {
		write(&o.queue[n])
		n++
	}
	if n > 0 {
		// The lines left move to the front (usually none are left).
		m := copy(o.queue, o.queue[n:])
		clear(o.queue[m:])
		o.queue = o.queue[:m]
		o.next -= n
	}
}
