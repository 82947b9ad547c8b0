package export

import (
	"context"
	"errors"
	"fmt"
	"io"

	"go.opentelemetry.io/otel/trace"

	"github.com/evcap/evcap/envelope"
)

// Summary is what exporting one capture did.
type Summary struct {
	CaptureID string
	// TraceID is the trace the spans went to.
	TraceID trace.TraceID
	// Spans is the number of spans handed to emit.
	Spans int
	// FirstSeq and LastSeq are the sequence range the trace covers.
	FirstSeq, LastSeq int64
	// Torn is true when the capture ended in a torn last line; what came
	// before it was exported.
	Torn bool
}

// Capture reads one capture's records from r (name is used in errors and
// as evcap.capture.file) and hands each finished span to emit, in the
// order the spans finish. It checks ctx before each record. A torn last
// line is not an error: the records before it are exported and Summary
// says so. Any other bad line stops the export with an error that names
// the file and line.
func Capture(ctx context.Context, r io.Reader, name string, opts Options, emit func(*Span)) (Summary, error) {
	if opts.File == "" {
		opts.File = name
	}
	var sum Summary
	b := NewBuilder(opts, func(s *Span) {
		sum.Spans++
		emit(s)
	})
	rd := envelope.NewReader(r, name, envelope.ReaderOptions{})
	first := true
	for {
		if err := ctx.Err(); err != nil {
			return sum, err
		}
		rec, err := rd.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			if errors.Is(err, envelope.ErrTornLine) {
				sum.Torn = true
				break
			}
			return sum, err
		}
		if first {
			sum.CaptureID, sum.FirstSeq = rec.CaptureID, rec.Sequence
			first = false
		}
		sum.LastSeq = rec.Sequence
		if err := b.Add(rec); err != nil {
			return sum, fmt.Errorf("%s:%d: %w", name, rd.Line(), err)
		}
	}
	if first {
		return sum, fmt.Errorf("%s: %w", name, ErrEmpty)
	}
	b.Close()
	sum.TraceID = b.TraceID()
	return sum, nil
}

// ErrEmpty: the input held no capture record.
var ErrEmpty = errors.New("no capture records to export")
