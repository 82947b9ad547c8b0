package gemini

import (
	"github.com/evcap/evcap/event"
	"github.com/evcap/evcap/internal/lines"
)

// Writer is an io.WriteCloser that normalizes Gemini CLI stream-json output written to
// it in chunks of any size. Lines are numbered from 1 and the number is
// the Cause of the events they produce. Emit is called with the events of
// each complete line, and at Close with those of the end of the stream
// (a torn last line is normalized first); the slice is only valid during
// the call.
type Writer struct {
	Emit func([]event.Event)
	n    *Normalizer
	sp   lines.Splitter
	ref  int64
	done bool
}

// NewWriter returns a Writer that passes events to emit.
func NewWriter(emit func([]event.Event)) *Writer {
	w := &Writer{Emit: emit, n: New()}
	w.sp.Fn = func(line []byte) {
		w.ref++
		if evs := w.n.Line(w.ref, line); len(evs) > 0 {
			w.Emit(evs)
		}
	}
	return w
}

// Write splits p into lines and normalizes each complete one. It never fails.
func (w *Writer) Write(p []byte) (int, error) { return w.sp.Write(p) }

// Close normalizes a torn last line, if any, and ends the stream.
// Closing twice does nothing.
func (w *Writer) Close() error {
	if w.done {
		return nil
	}
	w.done = true
	if torn := w.sp.Pending(); torn != nil {
		w.ref++
		if evs := w.n.Line(w.ref, torn); len(evs) > 0 {
			w.Emit(evs)
		}
	}
	if evs := w.n.End(); len(evs) > 0 {
		w.Emit(evs)
	}
	return nil
}
