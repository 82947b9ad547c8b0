package event

import (
	"errors"
	"fmt"
	"io"

	"github.com/evcap/evcap/internal/lines"
)

// Converter is an io.WriteCloser that splits the native output written to
// it, in chunks of any size, into lines and feeds them to a Normalizer,
// calling emit with each event in order. It lives here, beside the
// Normalizer interface, so that every provider streams the same way: lines
// are numbered from 1 and the number is the Cause of the events they give,
// and Close normalizes a torn last line (one with no newline) before the
// end of the stream.
type Converter struct {
	n     Normalizer
	emit  func(Event)
	split lines.Splitter
	ref   int64
	done  bool
}

// NewConverter returns a Converter that feeds n and calls emit once for
// every event, in order. n should be at the start of its stream.
func NewConverter(n Normalizer, emit func(Event)) *Converter {
	c := &Converter{n: n, emit: emit}
	c.split.Fn = c.line
	return c
}

func (c *Converter) line(b []byte) {
	c.ref++
	for _, ev := range c.n.Line(c.ref, b) {
		c.emit(ev)
	}
}

// Write feeds p, which may hold any part of any number of lines. It never
// fails.
func (c *Converter) Write(p []byte) (int, error) { return c.split.Write(p) }

// Close normalizes a torn last line, if any, and then the end of the
// stream. It never fails; closing twice does nothing.
func (c *Converter) Close() error {
	if c.done {
		return nil
	}
	c.done = true
	if torn := c.split.Pending(); torn != nil {
		c.line(torn)
	}
	for _, ev := range c.n.End() {
		c.emit(ev)
	}
	return nil
}

// ReadAll reads a whole native stream from r, line by line, through n and
// returns all its events, with line numbers (from 1) as causes. A torn last
// line is normalized like any other line. Only a read error is returned,
// together with the events of the lines before it; it names the line that
// could not be read. The events are held in memory: this is for tests,
// examples and small inputs, not for captures of unknown size (use a
// Converter there).
func ReadAll(r io.Reader, n Normalizer) ([]Event, error) {
	lr := lines.NewReader(r)
	var out []Event
	for {
		b, err := lr.Next()
		if err != nil && !errors.Is(err, lines.ErrTorn) {
			if errors.Is(err, io.EOF) {
				return append(out, n.End()...), nil
			}
			return out, fmt.Errorf("read line %d: %w", lr.Line()+1, err)
		}
		out = append(out, n.Line(lr.Line(), b)...)
	}
}
