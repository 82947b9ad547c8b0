package replay

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"

	"github.com/evcap/evcap/envelope"
	"github.com/evcap/evcap/event"
	"github.com/evcap/evcap/fixtures"
)

// ErrBadInput marks errors about the input (unreadable, invalid, lacking
// the stage a mode needs) as opposed to a replay that ran and differed.
var ErrBadInput = errors.New("bad replay input")

// LoadCapture is LoadCaptureContext with a context that is never done.
func LoadCapture(r io.Reader, name string) (*fixtures.Fixture, error) {
	return LoadCaptureContext(context.Background(), r, name)
}

// LoadCaptureContext reads a capture into the fixture form replay works
// on: every record but the meta ones, sorted by sequence. The capture is
// read record by record; the records themselves are kept (replay needs
// them all to sort and compare). The CLI name and version come from
// capture.start. It returns ctx's cause once ctx is done (checked before
// each record).
func LoadCaptureContext(ctx context.Context, r io.Reader, name string) (*fixtures.Fixture, error) {
	fx := &fixtures.Fixture{Name: name, Source: name}
	er := envelope.NewReader(r, name, envelope.ReaderOptions{})
	seen := map[int64]bool{}
	for {
		if err := context.Cause(ctx); err != nil {
			return nil, err
		}
		rec, err := er.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrBadInput, err)
		}
		if seen[rec.Sequence] {
			return nil, fmt.Errorf("%w: %s line %d: sequence %d appears twice", ErrBadInput, name, er.Line(), rec.Sequence)
		}
		seen[rec.Sequence] = true
		if fx.Provider == "" {
			fx.Provider = rec.Provider
		}
		if rec.Stage == envelope.StageMeta {
			if rec.EventType == envelope.EventCaptureStart {
				var st struct{ CLIName, CLIVersion string }
				if json.Unmarshal(rec.Payload, &st) == nil {
					fx.CLI = fixtures.CLI{Name: st.CLIName, Version: st.CLIVersion}
				}
			}
			continue
		}
		if rec.Stage == envelope.StageNativeIn && rec.Source == envelope.SourceHistory {
			fx.Restored = true
		}
		fx.Events = append(fx.Events, fixtures.FromRecord(rec))
	}
	sort.SliceStable(fx.Events, func(i, j int) bool { return fx.Events[i].Sequence < fx.Events[j].Sequence })
	return fx, nil
}

// LoadCaptureFile opens and reads a capture file with LoadCapture.
func LoadCaptureFile(path string) (*fixtures.Fixture, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadInput, err)
	}
	defer f.Close()
	return LoadCapture(f, path)
}

// nativeLine is one native_in record, decoded back to the bytes the CLI
// printed.
type nativeLine struct {
	seq  int64
	line []byte
}

// nativeLines are the lines the normalizer reads, in sequence order (see
// envelope.Normalized: the CLI's native lines and the control responses
// the integration sent it).
func nativeLines(fx *fixtures.Fixture) []nativeLine {
	var out []nativeLine
	for _, e := range fx.Events {
		if !envelope.Normalized(e.Stage, e.EventType) {
			continue
		}
		out = append(out, nativeLine{seq: e.Sequence, line: envelope.DecodeNativeLine(e.EventType, e.Payload)})
	}
	return out
}

// recordedEvent is a normalized event together with the record it came from.
type recordedEvent struct {
	seq int64
	ev  event.Event
}

// recordedEvents decodes the normalized_out records; the record's cause
// becomes the event's Cause, as the normalizer had set it.
func recordedEvents(fx *fixtures.Fixture) ([]recordedEvent, error) {
	var out []recordedEvent
	for _, r := range fx.Stage(envelope.StageNormalizedOut) {
		var e event.Event
		if err := json.Unmarshal(r.Payload, &e); err != nil {
			return nil, fmt.Errorf("%w: %s: normalized_out record %d is not an event: %w", ErrBadInput, fx.Name, r.Sequence, err)
		}
		if len(r.Cause) > 0 {
			e.Cause = append([]int64(nil), r.Cause...)
		}
		out = append(out, recordedEvent{seq: r.Sequence, ev: e})
	}
	return out, nil
}

// normalizeContext feeds native lines to a fresh normalizer, stopping with
// ctx's cause once ctx is done (checked before each line).
func normalizeContext(ctx context.Context, n Normalizer, lines []nativeLine) ([]event.Event, error) {
	var out []event.Event
	for _, l := range lines {
		if err := context.Cause(ctx); err != nil {
			return nil, err
		}
		out = append(out, n.Line(l.seq, l.line)...)
	}
	return append(out, n.End()...), nil
}

// Normalize is NormalizeContext with a context that is never done.
func Normalize(fx *fixtures.Fixture, mk func() Normalizer) []event.Event {
	out, _ := NormalizeContext(context.Background(), fx, mk)
	return out
}

// NormalizeContext feeds the native_in records of fx (in sequence order,
// stderr and gap records left out) to a fresh normalizer from mk, with
// each record's sequence as the ref, and returns every event including
// End's; or ctx's cause once ctx is done (checked before each line).
func NormalizeContext(ctx context.Context, fx *fixtures.Fixture, mk func() Normalizer) ([]event.Event, error) {
	return normalizeContext(ctx, mk(), nativeLines(fx))
}
