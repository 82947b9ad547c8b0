package codex

import (
	"errors"
	"fmt"
	"io"

	"github.com/evcap/evcap/event"
	"github.com/evcap/evcap/internal/lines"
)

// Converter is an io.WriteCloser that takes codex exec --json output
// in chunks of any size and calls Emit with each normalized event, in
// order. Lines are numbered from 1 and the number is each event's Cause.
// Close normalizes a last line that has no newline and then the end of
// the stream.
type Converter struct {
	n     *Normalizer
	split lines.Splitter
	ref   int64
	emit  func(event.Event)
}

// NewConverter returns a Converter that calls emit for every event.
func NewConverter(emit func(event.Event)) *Converter {
	c := &Converter{n: New(), emit: emit}
	c.split.Fn = c.line
	return c
}

func (c *Converter) line(b []byte) {
	c.ref++
	for _, ev := range c.n.Line(c.ref, b) {
		c.emit(ev)
	}
}

// Write feeds p, which may hold any part of any number of lines.
func (c *Converter) Write(p []byte) (int, error) { return c.split.Write(p) }

// Close ends the stream. It never fails.
func (c *Converter) Close() error {
	if torn := c.split.Pending(); torn != nil {
		c.line(torn)
	}
	for _, ev := range c.n.End() {
		c.emit(ev)
	}
	return nil
}

// Normalize reads a whole codex exec --json stream from r and returns its
// normalized events (line numbers as causes). A torn last line is
// normalized like any other line. Only a read error is returned.
func Normalize(r io.Reader) ([]event.Event, error) {
	n := New()
	lr := lines.NewReader(r)
	var out []event.Event
	for {
		b, err := lr.Next()
		if err != nil && !errors.Is(err, lines.ErrTorn) {
			if errors.Is(err, io.EOF) {
				return append(out, n.End()...), nil
			}
			return out, fmt.Errorf("codex: read line %d: %w", lr.Line()+1, err)
		}
		out = append(out, n.Line(lr.Line(), b)...)
	}
}
