package replay

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/evcap/evcap/envelope"
	"github.com/evcap/evcap/fixtures"
)

// NativeLine is one line the agent CLI printed, as the capture recorded it.
type NativeLine struct {
	// Index is the line's place in the stream it was taken into (0-based).
	Index int
	// Sequence is its capture record's sequence number.
	Sequence int64
	// EventType is its record's eventType (the JSON line's type, "nonJSON"
	// or "stderr").
	EventType string
	// Stderr marks a line the CLI wrote to stderr.
	Stderr bool
	// Line is the bytes printed, without the newline.
	Line []byte
	// At is when it was printed, from the first native line; 0 when the
	// input has no timestamps (fixtures keep none).
	At time.Duration
}

// NativeStream returns the native lines of fx in sequence order, exactly as
// the CLI printed them: JSON and non-JSON stdout lines, and stderr lines
// only when stderr is set. Gap records (bytes the recorder dropped) are
// left out: there is nothing to feed for them.
func NativeStream(fx *fixtures.Fixture, stderr bool) []NativeLine {
	var out []NativeLine
	for _, e := range fx.Stage(envelope.StageNativeIn) {
		if e.EventType == envelope.EventGap || (e.EventType == envelope.EventStderr && !stderr) {
			continue
		}
		out = append(out, NativeLine{Index: len(out), Sequence: e.Sequence, EventType: e.EventType,
			Stderr: e.EventType == envelope.EventStderr, Line: envelope.DecodeNativeLine(e.EventType, e.Payload)})
	}
	return out
}

// StreamBytes is the byte stream of lines: each line and its newline.
func StreamBytes(lines []NativeLine) []byte {
	var b []byte
	for _, l := range lines {
		b = append(append(b, l.Line...), '\n')
	}
	return b
}

// CaptureTimes is CaptureTimesContext with a context that is never done.
func CaptureTimes(r io.Reader, name string) (map[int64]time.Duration, error) {
	return CaptureTimesContext(context.Background(), r, name)
}

// CaptureTimesContext reads a capture file's native_in timestamps and
// returns each record's time since the first native_in record, by
// sequence, for NativeLine.At (LoadCapture keeps no timestamps). Records
// whose timestamp does not parse are left out. It returns ctx's cause once
// ctx is done (checked before each record).
func CaptureTimesContext(ctx context.Context, r io.Reader, name string) (map[int64]time.Duration, error) {
	er := envelope.NewReader(r, name, envelope.ReaderOptions{})
	out := map[int64]time.Duration{}
	var first time.Time
	for {
		if err := context.Cause(ctx); err != nil {
			return nil, err
		}
		rec, err := er.Next()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrBadInput, err)
		}
		if rec.Stage != envelope.StageNativeIn {
			continue
		}
		t, _, err := envelope.ParseTimestamp(rec.Timestamp)
		if err != nil {
			continue
		}
		if first.IsZero() {
			first = t
		}
		out[rec.Sequence] = t.Sub(first)
	}
}

// MarshalJSON writes the line as a JSON string (not base64), for reports.
func (l NativeLine) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Index     int    `json:"index"`
		Sequence  int64  `json:"sequence"`
		EventType string `json:"eventType"`
		Stderr    bool   `json:"stderr,omitempty"`
		Line      string `json:"line"`
	}{l.Index, l.Sequence, l.EventType, l.Stderr, string(l.Line)})
}
