package envelope

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"sync"
)

// ParallelReader reads a capture's records as Reader does (the same
// records, in file order, with the same errors and line numbers) but reads
// the file and parses its lines on goroutines of its own, ahead of the
// caller: one goroutine reads the file in chunks of whole lines, and a few
// parse the chunks, several at once (and Next too, while the chunk it
// needs is not ready). It is for a caller that spends about
// as much time on each record as parsing it takes (replay, which
// normalizes and compares every record), so that both use the cores.
//
// A record Next returns, its Payload, its Cause and the values of its
// Extra fields point into the chunk it was read in and stay valid only
// until the next call to Next (as with Reader.NextShared, whose Cause is
// the caller's, though); its strings are the caller's to keep. Memory holds a few chunks of 256 KiB, or one line
// when a line is longer, whatever the capture's length.
//
// Where r can seek (its Seek agreeing with what Read returned, as a
// file's does), a line longer than a chunk is read up to its newline
// first and then read again into a buffer of its length; where it cannot
// (a pipe), it is read in blocks and put together.
//
// A caller can keep a record's payload for good when Owned says that its
// chunk is never read into again (a chunk made for one long line).
//
// Unlike Reader, a read error ends the stream: Next returns it, and
// again at every later call. A bad line does not: its *LineError is
// returned and the records after it follow. Close must be called once the
// caller is done, before it reads (or seeks in) the capture again.
type ParallelReader struct {
	name  string
	opts  ReaderOptions
	free  chan *pchunk // chunks the caller is done with
	work  chan *pchunk // read, to be parsed
	order chan *pchunk // read, in file order, for Next
	quit  chan struct{}
	once  sync.Once
	wg    sync.WaitGroup

	sc   lineScanner // for the chunks Next parses itself
	cur  *pchunk
	next int   // the next entry of cur
	base int64 // lines in the chunks before cur
	line int64
	err  error // the end of the stream, once met
}

// pchunk is a run of whole lines of the capture and, once parsed, what
// they hold.
type pchunk struct {
	buf []byte
	// data is whole lines, each with its newline; tail, when torn is
	// set, is the capture's last line, which has none.
	data, tail []byte
	torn       bool
	// end, when not nil, is what follows the chunk: io.EOF, or the read
	// error (wrapped as Reader words it) or ctx's cause.
	end error
	// Filled by the parser: the chunk's lines, blank ones included, and
	// an entry per record line.
	lines  int64
	ents   []pentry
	causes []int64 // the records' Cause arrays, one after another
	ready  chan struct{}
	// owned says buf is never read into again (see Owned).
	owned bool
}

// pentry is one non-blank line: its record, or the error reading it
// (a *LineError whose Line counts from the chunk's start).
type pentry struct {
	rec  Record
	line int64
	err  *LineError
}

const (
	// parallelChunk is the size of a chunk, and of each read.
	parallelChunk = 256 << 10
	// A chunk that a long line made larger than this is dropped once
	// its lines are done, rather than read into again.
	parallelKeep = 4 << 20
	// The blocks a long line is read in.
	longBlock = 1 << 20
)

// ParallelOptions configure a ParallelReader.
type ParallelOptions struct {
	ReaderOptions
	// Workers is the number of parsing goroutines; 0 means one less than
	// GOMAXPROCS (at least one), leaving a core to the caller.
	Workers int
}

// NewParallelReader starts reading records from r; name is used in error
// messages. The reading stops early once ctx is done, and Next then
// returns ctx's cause after the records read before.
func NewParallelReader(ctx context.Context, r io.Reader, name string, opts ParallelOptions) *ParallelReader {
	return newParallelReader(ctx, r, name, opts, parallelChunk)
}

// newParallelReader is NewParallelReader with chunks of size bytes (the
// tests use small ones, to put chunk ends everywhere).
func newParallelReader(ctx context.Context, r io.Reader, name string, opts ParallelOptions, size int) *ParallelReader {
	workers := opts.Workers
	if workers <= 0 {
		workers = max(1, runtime.GOMAXPROCS(0)-1)
	}
	// Enough chunks that every parser has one while the reader fills
	// another and the caller reads a third, and some slack for when a
	// long line holds one of them up.
	chunks := 2*workers + 6
	p := &ParallelReader{
		name:  name,
		opts:  opts.ReaderOptions,
		free:  make(chan *pchunk, chunks),
		work:  make(chan *pchunk, chunks),
		order: make(chan *pchunk, chunks),
		quit:  make(chan struct{}),
	}
	for range chunks {
		p.free <- &pchunk{ready: make(chan struct{}, 1)}
	}
	p.wg.Add(1 + workers)
	go p.read(ctx, r, size)
	for range workers {
		go p.parse()
	}
	return p
}

// read fills chunks with whole lines and hands them to the parsers and
// to Next, in file order, until the capture ends or Close.
func (p *ParallelReader) read(ctx context.Context, r io.Reader, size int) {
	defer p.wg.Done()
	defer close(p.work)
	defer close(p.order)
	var carry []byte   // the start of a line, read into the chunk before
	var scratch []byte // for longLine
	noSeek := false    // r cannot seek: longLine said so
	for {
		var c *pchunk
		select {
		case c = <-p.free:
		case <-p.quit:
			return
		}
		buf := c.buf
		switch {
		case len(carry) >= size:
			// A long line goes on: room for it and as much again.
			buf = make([]byte, 2*len(carry))
		case buf == nil || len(buf) > max(size, parallelKeep):
			buf = make([]byte, size)
		}
		n := copy(buf, carry) // may overlap when c held carry: copy moves
		carry = nil
		last := -1 // the last newline in buf[:n]
		var end error
		// A line longer than buf is read into blocks, full ones here
		// (those of buf before them), and put together once its end is in.
		var blocks [][]byte
		held := 0 // bytes in blocks
		for empty := 0; ; {
			if err := context.Cause(ctx); err != nil {
				end = err
				break
			}
			select {
			case <-p.quit:
				return
			default:
			}
			if n == len(buf) && blocks == nil && !noSeek {
				// Full without a newline: one long line. Where the
				// capture can seek, find where it ends, then read it
				// again into a buffer of its length (see longLine).
				whole, wlast, ok, quit, wend := p.longLine(ctx, r, buf[:n], &scratch, size)
				if quit {
					return
				}
				if ok {
					buf, n, last, end = whole, len(whole), wlast, wend
					break
				}
				noSeek = true
			}
			if n == len(buf) {
				// Full without a newline: one long line.
				blocks = append(blocks, buf)
				held += n
				buf, n = make([]byte, max(size, longBlock)), 0
			}
			m, err := r.Read(buf[n:])
			if m < 0 || m > len(buf)-n {
				panic("envelope: reader returned an invalid count")
			}
			// The first newline by IndexByte, which is vectorised (a
			// long line's blocks have none); the last one from the end,
			// where it usually is.
			if i := bytes.IndexByte(buf[n:n+m], '\n'); i >= 0 {
				last = n + i
				if j := bytes.LastIndexByte(buf[last+1:n+m], '\n'); j >= 0 {
					last += 1 + j
				}
			}
			n += m
			if err != nil {
				end = err
				if err != io.EOF {
					end = fmt.Errorf("%s: read: %w", p.name, err)
				}
				break
			}
			if last >= 0 {
				break
			}
			if m == 0 {
				if empty++; empty >= maxEmptyReads {
					end = fmt.Errorf("%s: read: %w", p.name, io.ErrNoProgress)
					break
				}
			}
		}
		if blocks != nil {
			whole := make([]byte, held+n)
			k := 0
			for _, b := range blocks {
				k += copy(whole[k:], b)
			}
			copy(whole[k:], buf[:n])
			if last >= 0 {
				last += held
			}
			buf, n = whole, held+n
		}
		c.buf, c.data, c.tail, c.torn, c.end = buf, buf[:last+1], nil, false, end
		// The test that drops such a buffer above, when c comes back.
		c.owned = len(buf) > max(size, parallelKeep)
		switch {
		case end == nil:
			carry = buf[last+1 : n]
		case end == io.EOF && n > last+1:
			c.tail, c.torn = buf[last+1:n], true
		}
		p.work <- c
		p.order <- c
		if end != nil {
			return
		}
	}
}

// longLine reads the rest of a line that fills head (a chunk's buffer,
// with no newline in it) where r can seek, touching its length of fresh
// memory once: it reads on into scratch (kept for the next long line)
// until the line's newline, the end of the capture or an error, goes
// back to where head ends and reads the rest of the line again, into a
// buffer made for head and that rest. (Read in blocks and put together,
// as read does otherwise, a line takes twice its length of fresh memory,
// each page of it a page fault, and a copy.)
//
// It returns the buffer and the index of the line's newline in it (-1
// when the capture ended first: the buffer is then a torn last line), as
// read's loop sets buf and last; ok false when r cannot seek, having read
// nothing; quit when Close was called; and end, what ends the stream
// there (io.EOF, a read error, ctx's cause), as read's loop sets end. The chunk it ends is the line
// alone: the lines after it are read into the next one. A capture that
// changes under it (the line not where it was) is a read error.
func (p *ParallelReader) longLine(ctx context.Context, r io.Reader, head []byte, scratch *[]byte, size int) (buf []byte, last int, ok, quit bool, end error) {
	sk, _ := r.(io.Seeker)
	if sk == nil {
		return nil, -1, false, false, nil
	}
	start, err := sk.Seek(0, io.SeekCurrent)
	if err != nil {
		return nil, -1, false, false, nil
	}
	if *scratch == nil {
		*scratch = make([]byte, max(size, 4<<10))
	}
	sb := *scratch
	rest := 0 // bytes of the line after head, its newline included
	found := false
	for empty := 0; !found; {
		if err := context.Cause(ctx); err != nil {
			return head, -1, true, false, err
		}
		select {
		case <-p.quit:
			return nil, -1, false, true, nil
		default:
		}
		m, err := r.Read(sb)
		if m < 0 || m > len(sb) {
			panic("envelope: reader returned an invalid count")
		}
		if i := bytes.IndexByte(sb[:m], '\n'); i >= 0 {
			// What follows the newline (and err with it) is read again
			// after the line, by read.
			rest += i + 1
			found = true
			break
		}
		rest += m
		switch {
		case err == io.EOF:
			// A torn last line: read again below, and then the end.
		case err != nil:
			// The line is not read whole: as read does, the stream ends
			// with the error and without the line.
			return head, -1, true, false, fmt.Errorf("%s: read: %w", p.name, err)
		case m == 0:
			if empty++; empty >= maxEmptyReads {
				return head, -1, true, false, fmt.Errorf("%s: read: %w", p.name, io.ErrNoProgress)
			}
			continue
		default:
			continue
		}
		break
	}
	if _, err := sk.Seek(start, io.SeekStart); err != nil {
		return head, -1, true, false, fmt.Errorf("%s: read: %w", p.name, err)
	}
	buf = make([]byte, len(head)+rest)
	copy(buf, head)
	for n, empty := len(head), 0; n < len(buf); {
		if err := context.Cause(ctx); err != nil {
			return buf[:0], -1, true, false, err
		}
		select {
		case <-p.quit:
			return nil, -1, false, true, nil
		default:
		}
		m, err := r.Read(buf[n:])
		if m < 0 || m > len(buf)-n {
			panic("envelope: reader returned an invalid count")
		}
		n += m
		if n < len(buf) && err == nil && m == 0 {
			if empty++; empty >= maxEmptyReads {
				err = io.ErrNoProgress
			}
		}
		if n < len(buf) && err != nil {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return buf[:0], -1, true, false, fmt.Errorf("%s: read: %w", p.name, err)
		}
	}
	// The first newline of what was read again must be where the first
	// reading found it: the last byte, or none at a torn end.
	at := bytes.IndexByte(buf[len(head):], '\n')
	if found && at == rest-1 {
		return buf, len(buf) - 1, true, false, nil
	}
	if !found && at < 0 {
		return buf, -1, true, false, io.EOF
	}
	// The line's number is only known to the parsers, later; its byte
	// offset says where to look.
	return buf[:0], -1, true, false, fmt.Errorf("%s: read: the line at byte %d: %w", p.name, start-int64(len(head)), errChanged)
}

var errChanged = errors.New("the capture changed while it was read")

// parse parses the chunks it is handed until there are no more.
func (p *ParallelReader) parse() {
	defer p.wg.Done()
	var sc lineScanner
	for c := range p.work {
		p.parseChunk(&sc, c)
	}
}

// parseChunk parses the lines of c and says c is ready.
func (p *ParallelReader) parseChunk(sc *lineScanner, c *pchunk) {
	c.lines, c.ents, c.causes = 0, c.ents[:0], c.causes[:0]
	sc.causes = &c.causes
	data := c.data
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		line := data[:i]
		data = data[i+1:]
		c.lines++
		if len(line) == 0 || (len(line) == 1 && line[0] == '\r') {
			continue // blank, as Reader skips them
		}
		if len(c.ents) == cap(c.ents) {
			// Room for this line and every one after it at once, rather
			// than growing by steps (entries are large), and a quarter
			// more for the chunks read into c later: most chunks find
			// room and skip the count.
			n := len(c.ents) + 1 + bytes.Count(data, nl) + 1
			grown := make([]pentry, len(c.ents), n+n/4)
			copy(grown, c.ents)
			c.ents = grown
		}
		// scanRecord clears the record.
		c.ents = c.ents[:len(c.ents)+1]
		e := &c.ents[len(c.ents)-1]
		e.line, e.err = c.lines, nil
		if err := parseLine(sc, p.opts, line, &e.rec); err != nil {
			e.err = &LineError{File: p.name, Line: c.lines, Sequence: lineSequence(line), Err: err}
		}
	}
	if c.torn {
		c.lines++
		c.ents = append(c.ents, pentry{line: c.lines,
			err: &LineError{File: p.name, Line: c.lines, Sequence: lineSequence(c.tail), Err: ErrTornLine}})
	}
	c.ready <- struct{}{}
}

// Next returns the next record, valid until the next call; the errors are
// Reader's (io.EOF at the end), but that a read error ends the stream.
func (p *ParallelReader) Next() (*Record, error) {
	for {
		if c := p.cur; c != nil {
			if p.next < len(c.ents) {
				e := &c.ents[p.next]
				p.next++
				p.line = p.base + e.line
				if e.err != nil {
					le := *e.err
					le.Line = p.line
					return nil, &le
				}
				return &e.rec, nil
			}
			p.base += c.lines
			p.line = p.base // blank lines at the end count, as in Reader
			p.cur = nil
			if c.end != nil {
				p.err = c.end
			}
			p.free <- c
		}
		if p.err != nil {
			return nil, p.err
		}
		c, ok := <-p.order
		if !ok {
			// The reading ended without a last chunk: only after Close.
			p.err = errReaderClosed
			return nil, p.err
		}
		// While the chunk is not parsed yet, parse later ones: the caller
		// waits only when parsing is behind, and then it helps.
		for work := p.work; ; {
			select {
			case <-c.ready:
			case w, ok := <-work:
				if !ok {
					work = nil
				} else {
					p.parseChunk(&p.sc, w)
				}
				continue
			}
			break
		}
		p.cur, p.next = c, 0
	}
}

// Owned reports whether the record Next returned last lies in memory that
// the reader never reads into again nor reuses, as for a line longer than
// the reader keeps a buffer for: its Payload (and the bytes of its Extra
// values, not their array, nor the Cause array) may then be kept for
// good; an event.OwnedLiner may take the payload.
func (p *ParallelReader) Owned() bool { return p.cur != nil && p.cur.owned }

var nl = []byte{'\n'}

var errReaderClosed = errors.New("envelope: ParallelReader used after Close")

// Line is the 1-based line number of the record (or error) last returned.
func (p *ParallelReader) Line() int64 { return p.line }

// Close stops the reading and parsing and waits for their goroutines (a
// read under way is waited for). It may be called more than once; Next
// returns an error after it.
func (p *ParallelReader) Close() {
	p.once.Do(func() { close(p.quit) })
	p.wg.Wait()
	p.cur, p.err = nil, errReaderClosed
}
