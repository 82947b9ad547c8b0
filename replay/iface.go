package replay

import (
	"io"

	"github.com/evcap/evcap/event"
)

// Normalizer turns native lines into normalized events; every evcap
// normalizer (event.Normalizer) satisfies it. ref is the capture sequence
// number of the line, to be put into the Cause of the events it yields.
type Normalizer interface {
	Line(ref int64, line []byte) []event.Event
	End() []event.Event
}

// Renderer consumes normalized events and writes its output to the writer
// it was made with. render/term's Renderer satisfies it as is; other
// outputs (chat operations, render groups, legacy markers) need a small
// adapter that writes one line per item. Output written during Render is
// attributed to that event, output written by Close to the end of stream.
type Renderer interface {
	Render(e event.Event) error
	Close() error
}

// NewRenderer makes a fresh Renderer writing to w, for one replay.
type NewRenderer func(w io.Writer) Renderer
