package source

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/evcap/evcap/envelope"
	"github.com/evcap/evcap/internal/jsonpick"
	"github.com/evcap/evcap/internal/lines"
	"github.com/evcap/evcap/normalize/detect"
	"github.com/tidwall/gjson"
)

// DetectLines is how many native lines are looked at (and, by Native,
// held back) to tell the provider before normalizing starts. Every corpus
// stream is told by its first line or two; the rest is slack for leading
// noise.
const DetectLines = 16

// Native yields the native lines of one input: every line of raw agent
// output, or the native_in records (stderr and gaps excepted) of a
// capture, each with its ref (the 1-based line number, or the record's
// sequence number) for the events' Cause. It is what `evcap normalize` and
// `evcap census` read, and what an IDE backend would read to normalize a
// file or a pipe itself.
//
// The first native lines are read ahead and kept, so the provider can be
// told (Evidence, Choose) before the first line is normalized; Next hands
// them out again in order. Lines are not copied otherwise: a line Next
// returns is valid until the next call.
type Native struct {
	// Name is the input's name, for messages.
	Name string
	// IsCapture is true when the input is an evcap capture.
	IsCapture bool
	// Recorded and CLIVersion come from the capture's records (the
	// provider of its first record, the cliVersion of capture.start, as
	// far as they have been read); empty for raw output.
	Recorded   string
	CLIVersion string
	// BadRecords counts capture lines that were not valid records (each is
	// reported on the warning writer and skipped).
	BadRecords int
	// Live says that reading the input can wait for its writer: a pipe,
	// a FIFO, a terminal (Input.Live). Normalize then hands on the lines
	// read so far each time it has to read more of the input, instead of
	// holding them until a batch fills, and calls Drained once their
	// events are emitted: a live stream's events come out as its lines
	// arrive. Set it before Normalize.
	Live bool
	// Drained, when set, is called on emit's goroutine when Live and
	// every line read so far has had its events emitted, just before the
	// input is read again; an error from it ends Normalize as emit's
	// would. evcap normalize flushes its output there.
	Drained func() error

	// refill is the reader under the line reader; its hook runs before
	// each read of the input (Normalize's hand-on).
	refill *refillReader

	detected   detect.Match
	detectedOK bool
	// valid is Validated's answer for the line Next returned last; fresh
	// says that line is a slice nothing else refers to (a read-ahead
	// copy, a long line assembled), which Normalize need not copy.
	valid bool
	fresh bool
	raw   *rawLines
	env   *envelope.Reader
	ahead []aheadLine
	warn  io.Writer
}

type aheadLine struct {
	ref   int64
	line  []byte
	valid bool
}

// NewNative reads r, the input named name (already opened, e.g. by Open
// or as standard input), tells a capture from raw output by its first
// line, and reads ahead until the provider can be told or DetectLines
// native lines are held. Problems that do not stop the reading (a torn
// last line, an invalid capture record, a gap the capture recorded) are
// reported on warn, one line each starting with "evcap: ".
func NewNative(r io.Reader, name string, warn io.Writer) (*Native, error) {
	in := &Native{Name: name, warn: warn, refill: &refillReader{r: r}}
	br := bufio.NewReaderSize(in.refill, 64<<10)
	// The first line is read whole (ReadBytes has no length limit) and
	// handed to whichever reader takes over, so that it sees the input
	// from its first byte.
	first, err := br.ReadBytes('\n')
	if err != nil && err != io.EOF {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	if IsCaptureLine(bytes.TrimRight(first, "\r\n")) {
		in.IsCapture = true
		in.env = envelope.NewReader(io.MultiReader(bytes.NewReader(first), br), name, envelope.ReaderOptions{})
	} else {
		in.raw = &rawLines{br: br}
		if len(first) > 0 {
			in.raw.first = first
		}
	}

	for len(in.ahead) < DetectLines {
		ref, line, err := in.read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", name, err)
		}
		in.ahead = append(in.ahead, aheadLine{ref, bytes.Clone(line), in.valid})
		if m, ok := detect.Line(line); ok {
			in.detected, in.detectedOK = m, true
			break
		}
	}
	return in, nil
}

// Next returns the next native line and its ref, or io.EOF. The line is
// valid until the next call.
func (in *Native) Next() (int64, []byte, error) {
	if len(in.ahead) > 0 {
		a := in.ahead[0]
		in.ahead = in.ahead[1:]
		in.valid, in.fresh = a.valid, true
		return a.ref, a.line, nil
	}
	return in.read()
}

// Validated reports whether the line Next returned last is known to be
// valid JSON (gjson.ValidBytes): a capture's native_in JSON payload, which
// the envelope reader checked with its record, or a raw line longer than
// the read buffer, checked on another goroutine while it was read (the
// other raw lines are not, nor the first, read whole to tell a capture
// from raw output). A normalizer that is an event.ValidLiner can
// then take it with LineValid instead of validating it again.
func (in *Native) Validated() bool { return in.valid }

// Evidence is what the lines read ahead say about the provider.
func (in *Native) Evidence() Evidence {
	return Evidence{Name: in.Name, Recorded: in.Recorded, Detected: in.detected,
		DetectedOK: in.detectedOK, NativeLines: len(in.ahead)}
}

// Choose settles which provider's normalizer reads the input: Choose on
// its Evidence. Call it before the first Next.
func (in *Native) Choose(flag string, known []string) (string, error) {
	return Choose(in.Evidence(), flag, known)
}

func (in *Native) read() (int64, []byte, error) {
	in.valid, in.fresh = false, false
	if in.raw != nil {
		line, err := in.raw.next()
		in.fresh, in.valid = in.raw.fresh, in.raw.valid
		if errors.Is(err, lines.ErrTorn) {
			fmt.Fprintf(in.warn, "evcap: %s:%d: %v; normalized as it is\n", in.Name, in.raw.line, err)
			err = nil
		}
		return in.raw.line, line, err
	}
	for {
		// The record and its payload are the reader's until the next
		// call, as long as the line Next hands out.
		rec, err := in.env.NextShared()
		if err == io.EOF {
			return 0, nil, io.EOF
		}
		var le *envelope.LineError
		if errors.As(err, &le) {
			fmt.Fprintln(in.warn, "evcap:", err)
			if !errors.Is(err, envelope.ErrTornLine) {
				in.BadRecords++
			}
			continue
		}
		if err != nil {
			return 0, nil, err
		}
		if in.Recorded == "" {
			in.Recorded = strings.Clone(rec.Provider)
		}
		switch {
		case rec.Stage == envelope.StageMeta && rec.EventType == envelope.EventCaptureStart:
			if v := gjson.GetBytes(rec.Payload, "cliVersion"); v.Type == gjson.String {
				in.CLIVersion = strings.Clone(v.String())
			}
			continue
		case rec.Stage == envelope.StageNativeIn && rec.EventType == envelope.EventGap:
			fmt.Fprintf(in.warn, "evcap: %s: sequence %d: the capture dropped bytes here (gap): %s\n",
				in.Name, rec.Sequence, CompactPayload(rec.Payload))
			continue
		case !envelope.Normalized(rec.Stage, rec.EventType):
			continue
		}
		// A JSON native line is stored as the payload itself, which the
		// reader validated with the whole record; other lines are stored
		// as a string (or base64) that DecodeNativeLine decodes.
		in.valid = rec.EventType != envelope.EventNonJSON
		return rec.Sequence, envelope.DecodeNativeLine(rec.EventType, rec.Payload), nil
	}
}

// RecordEvidence is what the records read ahead of a capture say about its
// provider: the first record's provider, and normalize/detect's verdict on
// the first DetectLines native_in lines (stderr and gaps excepted). It is
// the capture side of Native.Evidence, for a reader that holds records
// (render reads a capture's records ahead to see whether it has
// normalized_out ones).
func RecordEvidence(name string, recs []*envelope.Record) Evidence {
	ev := Evidence{Name: name}
	for _, rec := range recs {
		if ev.Recorded == "" {
			ev.Recorded = rec.Provider
		}
		if rec.Stage != envelope.StageNativeIn || rec.EventType == envelope.EventStderr || rec.EventType == envelope.EventGap {
			continue
		}
		if ev.NativeLines++; ev.NativeLines > DetectLines {
			break
		}
		if m, ok := detect.Line(envelope.DecodeNativeLine(rec.EventType, rec.Payload)); ok {
			ev.Detected, ev.DetectedOK = m, true
			break
		}
	}
	return ev
}

// CompactPayload is a record payload on one line for a message: compacted,
// and cut to 400 characters.
func CompactPayload(raw []byte) string {
	s := gjson.Parse(string(raw)).Get("@ugly").Raw
	if utf8.RuneCountInString(s) <= 400 {
		return s
	}
	r := []rune(s)
	return string(r[:399]) + "…"
}

// refillReader is r with a hook called before each read: the line readers
// read it only when the lines they hold are used up, so the hook runs
// exactly when Next is about to ask the input for more.
type refillReader struct {
	r      io.Reader
	before func()
}

func (r *refillReader) Read(p []byte) (int, error) {
	if r.before != nil {
		r.before()
	}
	return r.r.Read(p)
}

// rawLines splits raw output into lines, numbered from 1, as
// internal/lines.Reader does, but hands out a line that fits in the
// bufio buffer as the buffer's own bytes instead of copying it: only a
// line longer than the buffer is assembled, in a fresh slice that nothing
// else refers to (fresh says so, for a caller that would otherwise copy
// it). Such a long line is checked as it is read, on another goroutine
// (longCheck), and valid says whether it is JSON: that check and the
// reading overlap, where a check after the reading took as long again as
// the rest of a 10 MB line's normalizing.
type rawLines struct {
	br    *bufio.Reader
	first []byte // the sniffed first line, newline included; nil once given
	line  int64
	fresh bool
	valid bool
}

const (
	// longStart is the capacity a long line's slice starts with; past
	// it the slice grows to longNext, and past that by longGrowth.
	longStart  = 1 << 20
	longNext   = 16 << 20
	longGrowth = 4
)

func (r *rawLines) next() ([]byte, error) {
	r.fresh, r.valid = false, false
	if r.first != nil {
		b := r.first
		r.first = nil
		r.line++
		if n := len(b); n > 0 && b[n-1] == '\n' {
			return b[:n-1], nil
		}
		return b, lines.ErrTorn
	}
	chunk, err := r.br.ReadSlice('\n')
	if err == nil {
		r.line++
		return chunk[:len(chunk)-1], nil
	}
	// A line longer than the buffer (or the last one, torn): its pieces
	// are appended to one slice of 1 MiB, then 16 MiB, then four times
	// as large at each step. A fresh page costs a fault (about 3 µs
	// here, more than copying it), so the pages touched count: a 10 MB
	// line touches 11.5 MB this way (the slices of 1 MiB and 16 MiB, the
	// second one in part; a page never written is never backed), 15 MB
	// growing four-fold from 1 MiB, 21 MB when it was read into 1 MiB
	// blocks and then copied into one slice of its length, 26 MB growing
	// by doubling. The last piece of a line that does not fit gives a
	// slice of the line's length.
	var line []byte
	var check *longCheck
	for {
		if len(line)+len(chunk) > cap(line) {
			c := len(line) + len(chunk) // the line's last piece: its length
			if errors.Is(err, bufio.ErrBufferFull) {
				c = nextLongCap(cap(line))
				for c < len(line)+len(chunk) {
					c = nextLongCap(c)
				}
			}
			line = growLine(line, c)
		}
		line = append(line, chunk...)
		if !errors.Is(err, bufio.ErrBufferFull) {
			break
		}
		if check == nil {
			check = startLongCheck()
		}
		check.feed(line)
		chunk, err = r.br.ReadSlice('\n')
	}
	switch {
	case err == nil:
		r.line++
		r.fresh = true
		line = line[: len(line)-1 : len(line)-1]
		r.valid = check.end(line)
		return line, nil
	case errors.Is(err, io.EOF):
		if len(line) == 0 {
			check.end(nil)
			return nil, io.EOF
		}
		r.line++
		r.fresh = true
		r.valid = check.end(line)
		return line, lines.ErrTorn
	}
	check.end(nil)
	return nil, err
}

// longCheck checks a long line with jsonpick.Validator on a goroutine of
// its own while the line is read: feed hands it each longer prefix, end
// the whole line and waits for the answer.
type longCheck struct {
	// prefix holds the latest prefix not yet taken (at most one: the
	// checker needs only the longest).
	prefix chan []byte
	// whole takes the whole line (closed to give up), answer the verdict.
	whole  chan []byte
	answer chan bool
}

func startLongCheck() *longCheck {
	c := &longCheck{prefix: make(chan []byte, 1), whole: make(chan []byte), answer: make(chan bool, 1)}
	go c.run()
	return c
}

func (c *longCheck) run() {
	var v jsonpick.Validator
	for {
		select {
		case p := <-c.prefix:
			v.Feed(p) // once it is false, End is false too
		case line, ok := <-c.whole:
			if ok {
				// A prefix still waiting is part of line: End covers it.
				c.answer <- v.End(line)
			}
			return
		}
	}
}

// feed hands the checker line, the line read so far (its bytes are not
// changed after).
func (c *longCheck) feed(line []byte) {
	select {
	case <-c.prefix: // a shorter prefix it has not taken: replaced
	default:
	}
	c.prefix <- line
}

// end hands the checker the whole line and returns whether it is JSON, or
// with a nil line stops the checker; on a nil c it reports false.
func (c *longCheck) end(line []byte) bool {
	if c == nil {
		return false
	}
	if line == nil {
		close(c.whole)
		return false
	}
	c.whole <- line
	return <-c.answer
}

// nextLongCap is the capacity a long line's slice of capacity c grows to.
func nextLongCap(c int) int {
	switch {
	case c < longStart:
		return longStart
	case c < longNext:
		return longNext
	}
	return c * longGrowth
}

// growLine returns a slice of capacity c holding line's bytes, copied in
// pieces of copyPiece bytes so that the collector can stop this goroutine
// between two of them. One copy of a few MiB into fresh pages (a page
// fault every 4 KiB) takes milliseconds, and memmove cannot be preempted:
// a collection that began meanwhile spun on the other core until the copy
// was done (perf: runtime.suspendG and procyield, up to 25 ms of a run's
// CPU on the bench run's 10.5 MB line).
func growLine(line []byte, c int) []byte {
	grown := make([]byte, len(line), c)
	for off := 0; off < len(line); off += copyPiece {
		copyPart(grown[off:], line[off:min(off+copyPiece, len(line))])
	}
	return grown
}

// copyPiece is growLine's piece: 64 fresh pages, some 100 µs of copying.
const copyPiece = 256 << 10

// copyPart is copy, not inlined: its call is where a pending preemption
// request stops the goroutine.
//
//go:noinline
func copyPart(dst, src []byte) { copy(dst, src) }
