package replay

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/evcap/evcap/envelope"
	"github.com/evcap/evcap/event"
	"github.com/evcap/evcap/fixtures"
)

// RunCapture is RunCaptureContext with a context that is never done.
func RunCapture(r io.ReadSeeker, name string, opts Options) error {
	return RunCaptureContext(context.Background(), r, name, opts)
}

// RunCaptureContext replays a capture file like LoadCaptureContext
// followed by RunContext, with the same result and the same Mismatch
// text, but in native mode compared with the recorded normalized_out (no
// Goldens, no Rechunk) it reads the capture once as a stream instead of holding every record: each native
// line goes to the normalizer as it is read, and the events it yields are
// compared with the normalized_out records as both arrive. Memory holds the
// events not yet matched (as many as normalized_out lags behind its native
// lines), the two matched lines before the first difference and the four
// after it on each side, not the capture. The capture is read and its
// lines parsed ahead of the normalizer by goroutines of their own
// (envelope.ParallelReader: a few chunks of lines, or one longer line,
// ahead), so that parsing and normalizing use all the cores.
//
// Captures are written in sequence order, which is all the stream needs.
// When a record's sequence is not above the one before it (out of order or
// repeated), RunCapture seeks back to the start and falls back to the
// in-memory path, which sorts (and reports repeats). Gaps in the numbering
// change no order and are streamed. On a mismatch the capture is read a
// second time to fetch the native lines behind the diverging event, however
// far back they are. Other modes and options use the in-memory path. Once
// ctx is done (checked before each record) it returns ctx's cause.
func RunCaptureContext(ctx context.Context, r io.ReadSeeker, name string, opts Options) error {
	if opts.Mode != ModeNative || opts.Rechunk != nil || opts.Goldens != nil || opts.Normalizer == nil {
		return runLoaded(ctx, r, name, opts)
	}
	err := streamNative(ctx, r, name, opts)
	if errors.Is(err, errUnordered) {
		if _, serr := r.Seek(0, io.SeekStart); serr != nil {
			return fmt.Errorf("%w: %s: rewind: %w", ErrBadInput, name, serr)
		}
		return runLoaded(ctx, r, name, opts)
	}
	return err
}

// CaptureProvider is CaptureProviderContext with a context that is never
// done.
func CaptureProvider(r io.Reader, name string) (provider string, restored bool, err error) {
	return CaptureProviderContext(context.Background(), r, name)
}

// CaptureProviderContext returns the provider of a capture as LoadCapture
// sets it (that of the first record naming one), and whether its native
// lines are stored entries of an imported session (Fixture.Restored),
// reading only up to the first native_in record that comes after the
// provider; ctx's cause once ctx is done (checked before each record).
func CaptureProviderContext(ctx context.Context, r io.Reader, name string) (provider string, restored bool, err error) {
	er := envelope.NewReader(r, name, envelope.ReaderOptions{})
	for {
		if err := context.Cause(ctx); err != nil {
			return "", false, err
		}
		rec, err := er.Next()
		if errors.Is(err, io.EOF) {
			return provider, restored, nil
		}
		if err != nil {
			return "", false, fmt.Errorf("%w: %w", ErrBadInput, err)
		}
		if provider == "" {
			provider = rec.Provider
		}
		if rec.Stage == envelope.StageNativeIn {
			restored = rec.Source == envelope.SourceHistory
			if provider != "" {
				return provider, restored, nil
			}
		}
	}
}

func runLoaded(ctx context.Context, r io.Reader, name string, opts Options) error {
	fx, err := LoadCaptureContext(ctx, r, name)
	if err != nil {
		return err
	}
	return RunContext(ctx, fx, opts)
}

// errUnordered says the stream met a sequence that is not above the one
// before it.
var errUnordered = errors.New("capture records not in sequence order")

// wantRec is a recorded normalized_out record waiting for its event. Its
// line (the event as EncodeEvent spells it, the record's cause as its
// Cause) is built only when a quick comparison cannot settle equality or a
// report needs it.
type wantRec struct {
	seq     int64
	payload []byte
	cause   []int64
	ev      *event.Event // decoded; nil until needed
	line    []byte
	// own is the record's copy of its payload, once it has one (see
	// keepPayload); its array is used again when the record is recycled.
	own []byte
}

// keepPayload copies the payload, which the reader lent for one call,
// into the record's own buffer, for a record kept past that call that may
// still need decoding.
func (w *wantRec) keepPayload() {
	if w.ev != nil {
		w.payload = nil // decoded: the bytes are not read again
		return
	}
	w.own = append(w.own[:0], w.payload...)
	w.payload = w.own
}

// decode decodes the payload once; the record's cause, when it has one,
// becomes the event's Cause as the normalizer had set it.
func (w *wantRec) decode(name string) error {
	if w.ev != nil {
		return nil
	}
	var e event.Event
	if err := json.Unmarshal(w.payload, &e); err != nil {
		return fmt.Errorf("%w: %s: normalized_out record %d is not an event: %w", ErrBadInput, name, w.seq, err)
	}
	if len(w.cause) > 0 {
		e.Cause = append([]int64(nil), w.cause...)
	}
	w.ev = &e
	w.payload = nil // not read again, and only lent
	return nil
}

// text is the record's line; the record is decoded already.
func (w *wantRec) text() []byte {
	if w.line == nil {
		w.line = EncodeEvent(*w.ev)
	}
	return w.line
}

func (w *wantRec) origin() *origin {
	return &origin{seq: w.seq, stage: envelope.StageNormalizedOut,
		eventType: string(w.ev.Kind) + "/" + string(w.ev.Phase), cause: w.ev.Cause}
}

// gotEv is an event the normalizer produced, with its line once built.
type gotEv struct {
	ev   event.Event
	line []byte
}

func (g *gotEv) text() []byte {
	if g.line == nil {
		g.line = EncodeEvent(g.ev)
	}
	return g.line
}

// streamCmp compares the expected (recorded) and produced events as they
// arrive. Until the first difference it holds only the unmatched events of
// the side that is ahead; after it, at most four lines of each side.
//
// Equality is that of the lines compareText would compare: EncodeEvent of
// the produced event, and EncodeEvent of the decoded record with the
// record's cause. Most records hold exactly the bytes the recorder wrote
// for the same event, so the produced event is first encoded without its
// cause (as the recorder writes it) and compared with the payload, and the
// causes compared as numbers: equal bytes decode to the same event, so
// this settles a match without decoding anything. Anything else is decoded
// and compared line by line, as before.
type streamCmp struct {
	name    string
	want    fifo[*wantRec]
	got     fifo[*gotEv]
	matched int
	// Matched records and events to use again: a replay that matches
	// allocates nothing per record for the comparison.
	spareWant *wantRec
	spareGot  []*gotEv
	// ctx holds the last two matched records; last is the origin of the
	// last matched one, built when needed.
	ctx []*wantRec
	// Once diverged: the lines from the first difference on.
	diverged bool
	wantTail [][]byte
	gotTail  [][]byte
	who      *origin
	// err is the first record that does not decode; nothing is compared
	// after it.
	err error

	// scratch holds the produced event's payload encoding for quick.
	scratch []byte
}

const tailLines = 4

// keepOwn is the largest payload copy a recycled record keeps for the next.
const keepOwn = 1 << 20

func newStreamCmp(name string) *streamCmp {
	return &streamCmp{name: name}
}

// addWant takes a normalized_out record. The payload and cause are only
// lent for the call (the reader reuses its buffers): what is kept past it
// is a copy or the decoded event.
func (c *streamCmp) addWant(seq int64, payload []byte, cause []int64) {
	if c.err != nil {
		return
	}
	w := c.spareWant
	if w != nil {
		c.spareWant = nil
		own := w.own
		if cap(own) > keepOwn {
			own = nil // one huge record: do not hold its size for the rest
		}
		*w = wantRec{seq: seq, payload: payload, cause: appendCause(w.cause[:0], cause), own: own}
	} else {
		w = &wantRec{seq: seq, payload: payload, cause: appendCause(nil, cause)}
	}
	if c.diverged || c.got.len() == 0 {
		// Not compared at once: decode now, so that the first record that
		// does not decode is the one reported, as the in-memory path does.
		if err := w.decode(c.name); err != nil {
			c.err = err
			return
		}
		if c.diverged {
			if len(c.wantTail) < tailLines {
				c.wantTail = append(c.wantTail, w.text())
			}
			return
		}
	}
	c.want.push(w)
	c.step()
	if c.want.len() > 0 && c.want.at(c.want.len()-1) == w {
		// Not settled by step (only when it stopped at an error): keep
		// what it may read later.
		w.keepPayload()
	}
}

// appendCause is append(dst, cause...), but nil for an empty cause (as
// the reader gives it).
func appendCause(dst, cause []int64) []int64 {
	if len(cause) == 0 {
		return nil
	}
	return append(dst, cause...)
}

func (c *streamCmp) addGot(e event.Event) {
	if c.err != nil {
		return
	}
	if c.diverged {
		if len(c.gotTail) < tailLines {
			c.gotTail = append(c.gotTail, EncodeEvent(e))
		}
		return
	}
	var g *gotEv
	if n := len(c.spareGot); n > 0 {
		g, c.spareGot = c.spareGot[n-1], c.spareGot[:n-1]
		*g = gotEv{ev: e}
	} else {
		g = &gotEv{ev: e}
	}
	c.got.push(g)
	c.step()
}

// gotFull says no more produced lines are needed.
func (c *streamCmp) gotFull() bool {
	return c.err != nil || (c.diverged && len(c.gotTail) >= tailLines)
}

// same says whether w's line equals g's.
func (c *streamCmp) same(w *wantRec, g *gotEv) (bool, error) {
	if w.ev == nil && c.quick(w, g) {
		return true, nil
	}
	if err := w.decode(c.name); err != nil {
		return false, err
	}
	return bytes.Equal(w.text(), g.text()), nil
}

// quick reports whether w's payload is byte for byte g's event as the
// recorder encodes it (without cause) and the causes agree; false says
// nothing.
func (c *streamCmp) quick(w *wantRec, g *gotEv) bool {
	if len(w.cause) > 0 {
		if !slices.Equal(w.cause, g.ev.Cause) {
			return false
		}
	} else if len(g.ev.Cause) > 0 {
		return false
	}
	// Encoded through a pointer, with the cause set aside for the call: a
	// copy of the event passed as a value would be boxed, one allocation
	// per record. (event.Event has no MarshalJSON, so the bytes are the
	// same either way.)
	cause := g.ev.Cause
	g.ev.Cause = nil
	var err error
	c.scratch, err = event.AppendPayload(c.scratch[:0], &g.ev)
	g.ev.Cause = cause
	if err != nil {
		return false
	}
	return bytes.Equal(c.scratch, w.payload)
}

func (c *streamCmp) step() {
	for c.want.len() > 0 && c.got.len() > 0 {
		w, g := c.want.at(0), c.got.at(0)
		ok, err := c.same(w, g)
		if err != nil {
			c.err = err
			return
		}
		if !ok {
			c.diverge()
			return
		}
		c.want.pop()
		c.got.pop()
		c.matched++
		// Matched records are kept only as context (the last two): with
		// their own copy of the payload and without their line. The one
		// that falls out, and the event, are used again.
		w.keepPayload()
		w.line = nil
		if len(c.ctx) == 2 {
			c.spareWant = c.ctx[0]
			c.ctx[0], c.ctx[1] = c.ctx[1], w
		} else {
			c.ctx = append(c.ctx, w)
		}
		*g = gotEv{}
		if len(c.spareGot) < 64 {
			c.spareGot = append(c.spareGot, g)
		}
	}
}

// diverge moves the queued lines into the tails.
func (c *streamCmp) diverge() {
	c.diverged = true
	if n := len(c.ctx); n > 0 {
		if err := c.ctx[n-1].decode(c.name); err == nil {
			c.who = c.ctx[n-1].origin()
		}
	}
	if c.want.len() > 0 {
		if err := c.want.at(0).decode(c.name); err != nil {
			c.err = err
			return
		}
		c.who = c.want.at(0).origin()
	}
	for _, w := range c.want.live() {
		if len(c.wantTail) < tailLines {
			if err := w.decode(c.name); err != nil {
				c.err = err
				return
			}
			c.wantTail = append(c.wantTail, w.text())
		}
	}
	for _, g := range c.got.live() {
		if len(c.gotTail) < tailLines {
			c.gotTail = append(c.gotTail, g.text())
		}
	}
	c.want, c.got = fifo[*wantRec]{}, fifo[*gotEv]{}
}

// finish is called at the end of both outputs.
func (c *streamCmp) finish() {
	if c.err == nil && !c.diverged && (c.want.len() > 0 || c.got.len() > 0) {
		c.diverge()
	}
}

// mismatch builds the report compareText gives for the whole outputs: the
// line diff only looks at two lines before the first difference and four
// after it, which is what the comparer kept.
func (c *streamCmp) mismatch(check string) *Mismatch {
	var ctx [][]byte
	for _, w := range c.ctx {
		if w.decode(c.name) == nil {
			ctx = append(ctx, w.text())
		}
	}
	join := func(parts ...[][]byte) []byte {
		var b []byte
		for _, p := range parts {
			for _, l := range p {
				b = append(b, l...)
			}
		}
		return b
	}
	want, got := join(ctx, c.wantTail), join(ctx, c.gotTail)
	first := len(ctx)
	m := &Mismatch{Check: check, Line: c.matched + 1, Diff: lineDiff(want, got, first),
		Want: lineAt(want, first), Got: lineAt(got, first)}
	if c.who != nil {
		m.Sequence, m.Stage, m.EventType = c.who.seq, c.who.stage, c.who.eventType
		if m.Sequence == 0 && len(c.who.cause) > 0 {
			m.Sequence, m.Stage = c.who.cause[len(c.who.cause)-1], envelope.StageNativeIn
		}
	}
	return m
}

func streamNative(ctx context.Context, r io.ReadSeeker, name string, opts Options) error {
	n := opts.Normalizer()
	// The reader has checked that every record line is JSON, so a native
	// JSON payload inside it is valid JSON too: a normalizer that can skip
	// its own check is handed the payload as it is.
	valid, _ := n.(event.ValidLiner)
	owned, _ := n.(event.OwnedLiner)
	er := envelope.NewParallelReader(ctx, r, name, envelope.ParallelOptions{})
	defer er.Close()
	c := newStreamCmp(name)
	// The comparer runs on a goroutine of its own (see cmpFeed), fed in
	// batches: this one reads and normalizes.
	f := newCmpFeed(c)
	defer f.stop()
	var (
		prev             int64
		natives, records int
	)
	for {
		if err := context.Cause(ctx); err != nil {
			return err
		}
		rec, err := er.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			if cause := context.Cause(ctx); cause != nil {
				return cause // the reader stopped for ctx
			}
			return fmt.Errorf("%w: %w", ErrBadInput, err)
		}
		if envelope.CheckOrder(prev, rec.Sequence) != nil {
			return errUnordered
		}
		prev = rec.Sequence
		switch rec.Stage {
		case envelope.StageNativeIn, envelope.StageNativeOut:
			if !envelope.Normalized(rec.Stage, rec.EventType) {
				continue
			}
			natives++
			if f.full.Load() {
				// The report has all it needs from this side; read on only
				// for the errors the in-memory path would report instead.
				continue
			}
			var evs []event.Event
			switch {
			case valid == nil || rec.EventType == envelope.EventNonJSON || rec.EventType == envelope.EventStderr:
				evs = n.Line(rec.Sequence, envelope.DecodeNativeLine(rec.EventType, rec.Payload))
			case owned != nil && er.Owned():
				// A long line in a buffer of its own, never read into
				// again: the normalizer may keep strings of it uncopied.
				evs = owned.LineOwned(rec.Sequence, rec.Payload)
			default:
				evs = valid.LineValid(rec.Sequence, rec.Payload)
			}
			f.got(evs)
		case envelope.StageNormalizedOut:
			records++
			f.want(rec)
		}
	}
	if natives == 0 {
		return fmt.Errorf("%w: %s has no native_in records", ErrBadInput, name)
	}
	if !f.full.Load() {
		f.got(n.End())
	}
	f.finish()
	if c.err != nil {
		return c.err
	}
	if records == 0 {
		return fmt.Errorf("%w: %s: nothing to compare with (no golden/%s and no normalized_out records); use --rechunk or promote it first", ErrBadInput, name, NormalizedGolden)
	}
	c.finish()
	if c.err != nil {
		return c.err
	}
	if !c.diverged {
		return nil
	}
	m := c.mismatch("native → recorded normalized_out")
	er.Close()
	if c.who != nil && len(c.who.cause) > 0 {
		nat, err := nativeRecords(ctx, r, name, c.who.cause)
		if err != nil {
			return err
		}
		m.Native = nat
	}
	return m
}

// nativeRecords reads the capture again from the start for the native_in
// records named in cause, keeping the last five as natives does.
func nativeRecords(ctx context.Context, r io.ReadSeeker, name string, cause []int64) ([]fixtures.Event, error) {
	if _, err := r.Seek(0, io.SeekStart); err != nil {
		return nil, fmt.Errorf("%w: %s: rewind: %w", ErrBadInput, name, err)
	}
	want := map[int64]bool{}
	for _, c := range cause {
		want[c] = true
	}
	const most = 5
	var out []fixtures.Event
	er := envelope.NewReader(r, name, envelope.ReaderOptions{})
	for {
		if err := context.Cause(ctx); err != nil {
			return nil, err
		}
		rec, err := er.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrBadInput, err)
		}
		if rec.Stage == envelope.StageNativeIn && want[rec.Sequence] {
			out = append(out, fixtures.FromRecord(rec))
			if len(out) > most {
				out = out[1:]
			}
		}
	}
	return out, nil
}

// fifo is a queue that uses its array again: taken slots are cleared, and
// the live part moves to the front once it is the smaller half, so a
// queue that keeps emptying allocates nothing and one that grows stays
// linear.
type fifo[T any] struct {
	items []T
	head  int
}

func (q *fifo[T]) push(x T)   { q.items = append(q.items, x) }
func (q *fifo[T]) len() int   { return len(q.items) - q.head }
func (q *fifo[T]) at(i int) T { return q.items[q.head+i] }
func (q *fifo[T]) live() []T  { return q.items[q.head:] }

// pop drops the first item.
func (q *fifo[T]) pop() {
	var zero T
	q.items[q.head] = zero
	q.head++
	switch {
	case q.head == len(q.items):
		q.items, q.head = q.items[:0], 0
	case q.head > len(q.items)/2:
		n := copy(q.items, q.items[q.head:])
		clear(q.items[n:])
		q.items, q.head = q.items[:n], 0
	}
}
