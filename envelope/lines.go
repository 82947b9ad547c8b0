package envelope

import (
	"bytes"
	"io"

	"github.com/evcap/evcap/internal/lines"
)

// lineSource splits a capture into lines exactly as internal/lines.Reader
// does (the same lines, numbering, torn last line and read errors) but
// hands out a line that fits in its buffer where it lies, instead of
// copying every line out of a bufio.Reader: a line is valid until the
// next call. A line longer than the buffer grows the buffer, which
// shrinks back once the long line is behind.
type lineSource struct {
	r          io.Reader
	buf        []byte
	start, end int   // buffered, unread bytes: buf[start:end]
	err        error // the read error met, for when the buffer is drained
	line       int64
}

const (
	lineBuf = 64 << 10
	// After a line longer than this, the buffer goes back to lineBuf.
	lineBufKeep = 4 << 20
	// As bufio does, give up on a reader that returns nothing this often.
	maxEmptyReads = 100
)

func newLineSource(r io.Reader) *lineSource { return &lineSource{r: r} }

// Line is the 1-based number of the line last returned.
func (s *lineSource) Line() int64 { return s.line }

// Next returns the next line without its newline; io.EOF at the end;
// the last line with lines.ErrTorn when the stream ends without a
// newline; (nil, err) for a read error, dropping the part of a line read
// before it, as lines.Reader does.
func (s *lineSource) Next() ([]byte, error) {
	if s.buf == nil {
		s.buf = make([]byte, lineBuf)
	}
	scanned := 0 // bytes after start known to hold no newline
	for {
		if i := bytes.IndexByte(s.buf[s.start+scanned:s.end], '\n'); i >= 0 {
			from, to := s.start, s.start+scanned+i
			s.start = to + 1
			s.line++
			return s.buf[from:to], nil
		}
		scanned = s.end - s.start
		if s.err != nil {
			err := s.err
			s.err = nil
			if err != io.EOF {
				s.start, s.end = 0, 0
				return nil, err
			}
			if s.start == s.end {
				s.err = io.EOF // and at every later call
				return nil, io.EOF
			}
			s.err = io.EOF
			from, to := s.start, s.end
			s.start = s.end
			s.line++
			return s.buf[from:to], lines.ErrTorn
		}
		s.fill()
	}
}

// fill reads more bytes after the buffered ones, first making room: the
// unread bytes move to the front, and the buffer doubles when they fill
// it (a long line), or shrinks back to lineBuf when a long line is done.
func (s *lineSource) fill() {
	n := s.end - s.start
	switch {
	case n == len(s.buf):
		grown := make([]byte, 2*len(s.buf))
		copy(grown, s.buf[s.start:s.end])
		s.buf = grown
	case len(s.buf) > lineBufKeep && n < lineBuf:
		small := make([]byte, lineBuf)
		copy(small, s.buf[s.start:s.end])
		s.buf = small
	case s.start > 0:
		copy(s.buf, s.buf[s.start:s.end])
	}
	s.start, s.end = 0, n
	// A grown buffer is read into lineBuf bytes at a time, so that when
	// the long line ends, little of what follows it sits in the big buffer:
	// the next fill can then shrink it instead of keeping the long line's
	// memory alive (and collected over and over) while the lines read ahead
	// behind it are used up.
	room := len(s.buf)
	if room > lineBuf {
		room = min(room, s.end+lineBuf)
	}
	for range maxEmptyReads {
		m, err := s.r.Read(s.buf[s.end:room])
		if m < 0 || m > room-s.end {
			panic("envelope: reader returned an invalid count")
		}
		s.end += m
		if err != nil {
			s.err = err
			return
		}
		if m > 0 {
			return
		}
	}
	s.err = io.ErrNoProgress
}
