package replay

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/evcap/evcap/envelope"
	"github.com/evcap/evcap/event"
	"github.com/evcap/evcap/fixtures"
)

// RunCapture replays a capture file like LoadCapture followed by Run, with
// the same result and the same Mismatch text, but in native mode compared
// with the recorded normalized_out (no Goldens, no Rechunk) it reads the
// capture once as a stream instead of holding every record: each native
// line goes to the normalizer as it is read, and the events it yields are
// compared with the normalized_out records as both arrive. Memory holds the
// events not yet matched (as many as normalized_out lags behind its native
// lines), the two matched lines before the first difference and the four
// after it on each side, not the capture.
//
// Captures are written in sequence order, which is all the stream needs.
// When a record's sequence is not above the one before it (out of order or
// repeated), RunCapture seeks back to the start and falls back to the
// in-memory path, which sorts (and reports repeats). Gaps in the numbering
// change no order and are streamed. On a mismatch the capture is read a
// second time to fetch the native lines behind the diverging event, however
// far back they are. Other modes and options use the in-memory path.
func RunCapture(r io.ReadSeeker, name string, opts Options) error {
	if opts.Mode != ModeNative || opts.Rechunk != nil || opts.Goldens != nil || opts.Normalizer == nil {
		return runLoaded(r, name, opts)
	}
	err := streamNative(r, name, opts)
	if errors.Is(err, errUnordered) {
		if _, serr := r.Seek(0, io.SeekStart); serr != nil {
			return fmt.Errorf("%w: %s: rewind: %w", ErrBadInput, name, serr)
		}
		return runLoaded(r, name, opts)
	}
	return err
}

// CaptureProvider returns the provider of a capture as LoadCapture sets
// it (that of the first record naming one), and whether its native lines
// are stored entries of an imported session (Fixture.Restored), reading
// only up to the first native_in record that comes after the provider.
func CaptureProvider(r io.Reader, name string) (provider string, restored bool, err error) {
	er := envelope.NewReader(r, name, envelope.ReaderOptions{})
	for {
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

func runLoaded(r io.Reader, name string, opts Options) error {
	fx, err := LoadCapture(r, name)
	if err != nil {
		return err
	}
	return Run(fx, opts)
}

// errUnordered says the stream met a sequence that is not above the one
// before it.
var errUnordered = errors.New("capture records not in sequence order")

// wantLine is a recorded event as a line of the expected output.
type wantLine struct {
	line []byte
	who  *origin
}

// streamCmp compares the expected (recorded) and produced lines as they
// arrive. Until the first difference it holds only the unmatched lines of
// the side that is ahead; after it, at most four lines of each side.
type streamCmp struct {
	want    []wantLine
	got     [][]byte
	matched int
	// ctx is the last two matched lines, last the origin of the last
	// matched expected line.
	ctx  [][]byte
	last *origin
	// Once diverged: the lines from the first difference on.
	diverged bool
	wantTail [][]byte
	gotTail  [][]byte
	who      *origin
}

const tailLines = 4

func (c *streamCmp) addWant(l []byte, who *origin) {
	if c.diverged {
		if len(c.wantTail) < tailLines {
			c.wantTail = append(c.wantTail, l)
		}
		return
	}
	c.want = append(c.want, wantLine{l, who})
	c.step()
}

func (c *streamCmp) addGot(l []byte) {
	if c.diverged {
		if len(c.gotTail) < tailLines {
			c.gotTail = append(c.gotTail, l)
		}
		return
	}
	c.got = append(c.got, l)
	c.step()
}

// gotFull says no more produced lines are needed.
func (c *streamCmp) gotFull() bool { return c.diverged && len(c.gotTail) >= tailLines }

func (c *streamCmp) step() {
	for len(c.want) > 0 && len(c.got) > 0 {
		w, g := c.want[0], c.got[0]
		if !bytes.Equal(w.line, g) {
			c.diverge()
			return
		}
		c.want, c.got = c.want[1:], c.got[1:]
		c.matched++
		c.ctx = append(c.ctx, w.line)
		if len(c.ctx) > 2 {
			c.ctx = c.ctx[1:]
		}
		c.last = w.who
	}
	// Let the queues' arrays be collected once drained.
	if len(c.want) == 0 {
		c.want = nil
	}
	if len(c.got) == 0 {
		c.got = nil
	}
}

// diverge moves the queued lines into the tails.
func (c *streamCmp) diverge() {
	c.diverged = true
	c.who = c.last
	if len(c.want) > 0 {
		c.who = c.want[0].who
	}
	for _, w := range c.want {
		if len(c.wantTail) < tailLines {
			c.wantTail = append(c.wantTail, w.line)
		}
	}
	for _, g := range c.got {
		if len(c.gotTail) < tailLines {
			c.gotTail = append(c.gotTail, g)
		}
	}
	c.want, c.got = nil, nil
}

// finish is called at the end of both outputs.
func (c *streamCmp) finish() {
	if !c.diverged && (len(c.want) > 0 || len(c.got) > 0) {
		c.diverge()
	}
}

// mismatch builds the report compareText gives for the whole outputs: the
// line diff only looks at two lines before the first difference and four
// after it, which is what the comparer kept.
func (c *streamCmp) mismatch(check string) *Mismatch {
	join := func(parts ...[][]byte) []byte {
		var b []byte
		for _, p := range parts {
			for _, l := range p {
				b = append(b, l...)
			}
		}
		return b
	}
	want, got := join(c.ctx, c.wantTail), join(c.ctx, c.gotTail)
	first := len(c.ctx)
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

func streamNative(r io.ReadSeeker, name string, opts Options) error {
	er := envelope.NewReader(r, name, envelope.ReaderOptions{})
	n := opts.Normalizer()
	c := &streamCmp{}
	var (
		prev             int64
		started          bool
		natives, records int
		decodeErr        error
	)
	feed := func(evs []event.Event) {
		for _, e := range evs {
			if c.gotFull() {
				return
			}
			c.addGot(EncodeEvent(e))
		}
	}
	for {
		rec, err := er.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return fmt.Errorf("%w: %w", ErrBadInput, err)
		}
		if started && rec.Sequence <= prev {
			return errUnordered
		}
		prev, started = rec.Sequence, true
		switch rec.Stage {
		case envelope.StageNativeIn, envelope.StageNativeOut:
			if !envelope.Normalized(rec.Stage, rec.EventType) {
				continue
			}
			natives++
			if c.gotFull() {
				// The report has all it needs from this side; read on only
				// for the errors the in-memory path would report instead.
				continue
			}
			feed(n.Line(rec.Sequence, envelope.DecodeNativeLine(rec.EventType, rec.Payload)))
		case envelope.StageNormalizedOut:
			var e event.Event
			if err := json.Unmarshal(rec.Payload, &e); err != nil {
				if decodeErr == nil {
					decodeErr = fmt.Errorf("%w: %s: normalized_out record %d is not an event: %w", ErrBadInput, name, rec.Sequence, err)
				}
				continue
			}
			if len(rec.Cause) > 0 {
				e.Cause = append([]int64(nil), rec.Cause...)
			}
			records++
			if decodeErr != nil {
				continue
			}
			c.addWant(EncodeEvent(e), &origin{seq: rec.Sequence, stage: envelope.StageNormalizedOut,
				eventType: string(e.Kind) + "/" + string(e.Phase), cause: e.Cause})
		}
	}
	if natives == 0 {
		return fmt.Errorf("%w: %s has no native_in records", ErrBadInput, name)
	}
	if !c.gotFull() {
		feed(n.End())
	}
	if decodeErr != nil {
		return decodeErr
	}
	if records == 0 {
		return fmt.Errorf("%w: %s: nothing to compare with (no golden/%s and no normalized_out records); use --rechunk or promote it first", ErrBadInput, name, NormalizedGolden)
	}
	c.finish()
	if !c.diverged {
		return nil
	}
	m := c.mismatch("native → recorded normalized_out")
	if c.who != nil && len(c.who.cause) > 0 {
		nat, err := nativeRecords(r, name, c.who.cause)
		if err != nil {
			return err
		}
		m.Native = nat
	}
	return m
}

// nativeRecords reads the capture again from the start for the native_in
// records named in cause, keeping the last five as natives does.
func nativeRecords(r io.ReadSeeker, name string, cause []int64) ([]fixtures.Event, error) {
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
