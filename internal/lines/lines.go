// Package lines splits byte streams into newline-terminated lines of any
// length. It exists because agent CLIs print lines of many MiB (tool output)
// and bufio.Scanner stops at 64 KiB by default.
//
// A Reader pulls lines from an io.Reader; a Splitter is pushed bytes in
// chunks of any size (an io.Writer) and calls back once per complete line.
// Neither interprets the bytes: a trailing "\r" is kept, invalid UTF-8 is kept.
package lines

import (
	"bufio"
	"bytes"
	"errors"
	"io"
)

// ErrTorn reports that the stream ended with bytes after the last newline:
// a last line that was cut off (or a writer that never ends its last line).
var ErrTorn = errors.New("last line has no newline (torn)")

// Reader reads newline-terminated lines of unbounded length.
type Reader struct {
	br   *bufio.Reader
	buf  []byte
	line int64
}

// NewReader returns a Reader over r.
func NewReader(r io.Reader) *Reader {
	return &Reader{br: bufio.NewReaderSize(r, 64<<10)}
}

// Next returns the next line without its "\n". The returned slice is valid
// until the next call to Next. At the end of the stream it returns io.EOF;
// when the stream ends with an unterminated line, that line is returned once
// together with ErrTorn, then io.EOF.
func (r *Reader) Next() ([]byte, error) {
	r.buf = r.buf[:0]
	for {
		chunk, err := r.br.ReadSlice('\n')
		r.buf = append(r.buf, chunk...)
		switch {
		case err == nil:
			r.line++
			// Give back oversized buffers so one huge line does not pin
			// its memory for the rest of the stream.
			line := r.buf[:len(r.buf)-1]
			if cap(r.buf) > 4<<20 && len(r.buf) < 64<<10 {
				r.buf = nil
			}
			return line, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF):
			if len(r.buf) == 0 {
				return nil, io.EOF
			}
			r.line++
			return r.buf, ErrTorn
		default:
			return nil, err
		}
	}
}

// Line is the 1-based number of the line most recently returned by Next.
func (r *Reader) Line() int64 { return r.line }

// Splitter is an io.Writer that calls Fn once for every complete line
// written to it, whatever the chunking of the writes. The slice passed to Fn
// is only valid during the call.
type Splitter struct {
	Fn      func(line []byte)
	pending []byte
}

// Write splits p into lines. It never fails.
func (s *Splitter) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			s.pending = append(s.pending, p...)
			break
		}
		if len(s.pending) > 0 {
			s.pending = append(s.pending, p[:i]...)
			s.Fn(s.pending)
			s.pending = s.pending[:0]
		} else {
			s.Fn(p[:i])
		}
		p = p[i+1:]
	}
	return n, nil
}

// Pending returns the bytes written after the last newline (a torn line),
// or nil. The slice is valid until the next Write.
func (s *Splitter) Pending() []byte {
	if len(s.pending) == 0 {
		return nil
	}
	return s.pending
}
