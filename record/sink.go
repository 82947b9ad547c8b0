package record

import (
	"crypto/rand"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/evcap/evcap/capture"
	"github.com/evcap/evcap/envelope"
	"github.com/evcap/evcap/event"
	"github.com/evcap/evcap/redact"
)

// sink writes the records of one recording. It is used by one goroutine
// (the pipeline's), so it needs no lock of its own; envelope.Writer flushes
// in the background so a kill -9 loses at most its flush interval.
//
// It writes through envelope.Writer rather than capture.Capturer because a
// recorder needs two things a library tap does not: gap records, and a
// provider that is known only after the first lines were read.
type sink struct {
	w        *envelope.Writer
	f        *os.File
	path     string
	provider string
	session  string
	red      *redact.Redactor
	// late counts normalized and legacy records the redactor still changed
	// (see normalized).
	late int
	err  error
	// observe, when set, sees every record after it was written (see
	// Options.Observer); clock stamps records written without a time.
	observe func(*envelope.Record)
	id      string
	clock   func() time.Time
}

// openSink writes the capture to out (the -o file, already open) or, when
// out is nil, to a new file named by capture.FileName inside dir.
func openSink(out *os.File, dir, provider string, now time.Time, red *redact.Redactor, clock func() time.Time) (*sink, error) {
	id, err := envelope.NewCaptureID(now, rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("capture id: %w", err)
	}
	f := out
	if f == nil {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("capture directory %s: %w", dir, err)
		}
		f, err = os.OpenFile(filepath.Join(dir, capture.FileName(provider, now, id)), os.O_CREATE|os.O_WRONLY|os.O_EXCL, 0o600)
		if err != nil {
			return nil, fmt.Errorf("capture file: %w", err)
		}
	}
	path := f.Name()
	return &sink{
		w:        envelope.NewWriter(f, envelope.WriterOptions{CaptureID: id, Now: clock}),
		f:        f,
		path:     path,
		provider: provider,
		red:      red,
		id:       id,
		clock:    clock,
	}, nil
}

// write writes one record stamped with at, the arrival time of the bytes
// it stands for (the writer's clock when at is zero).
func (s *sink) write(stage envelope.Stage, eventType string, payload []byte, ledger []envelope.Redaction, cause []int64, at time.Time) int64 {
	rec := envelope.Record{Provider: s.provider, SessionID: s.session, Stage: stage,
		EventType: eventType, Payload: payload, Redactions: ledger, Cause: cause}
	if at.IsZero() && s.observe != nil && s.clock != nil {
		at = s.clock()
	}
	if !at.IsZero() {
		rec.Timestamp = envelope.FormatTimestamp(at)
	}
	seq, err := s.w.Write(&rec)
	if err != nil && s.err == nil {
		s.err = err
	}
	if s.observe != nil && err == nil {
		rec.SchemaVersion, rec.CaptureID, rec.Sequence = envelope.SchemaVersion, s.id, seq
		s.observe(&rec)
	}
	return seq
}

func ledger(fs []redact.Finding) []envelope.Redaction {
	if len(fs) == 0 {
		return nil
	}
	out := make([]envelope.Redaction, len(fs))
	for i, f := range fs {
		out[i] = envelope.Redaction{Rule: f.Rule, Pointer: f.Pointer, Count: f.Count, OriginalLength: f.OriginalLength}
	}
	return out
}

// native records a stdout line the pipeline's LineRedactor released (or
// the raw line when there is no redactor).
func (s *sink) native(line []byte, l []envelope.Redaction, at time.Time) int64 {
	payload, kind := envelope.EncodeNativeLine(line)
	eventType := envelope.EventNonJSON
	if kind == envelope.NativeJSON {
		eventType = capture.NativeEventType(line)
	}
	return s.write(envelope.StageNativeIn, eventType, payload, l, nil, at)
}

// input records a line the integration wrote to the agent's stdin as a
// native_out record, byte for byte like a native line, redacted on its own
// (stream-json input carries whole messages, not deltas).
// It returns the sequence number and the line as recorded.
func (s *sink) input(line []byte, at time.Time) (int64, []byte) {
	var l []envelope.Redaction
	if s.red != nil {
		var f []redact.Finding
		line, f = s.red.Line(line)
		l = ledger(f)
	}
	payload, kind := envelope.EncodeNativeLine(line)
	eventType := envelope.EventNonJSON
	if kind == envelope.NativeJSON {
		eventType = capture.NativeEventType(line)
	}
	return s.write(envelope.StageNativeOut, eventType, payload, l, nil, at), line
}

// inputClosed records that the integration closed the agent's stdin.
func (s *sink) inputClosed(at time.Time) int64 {
	return s.write(envelope.StageNativeOut, envelope.EventInputClosed, []byte("null"), nil, nil, at)
}

// request records an HTTP request evcap made on the integration's behalf
// (the SSE subscription, an opencode session's POSTs) as native_out.
// payload is a capture.Request as JSON.
func (s *sink) request(payload []byte, at time.Time) int64 {
	var l []envelope.Redaction
	if s.red != nil {
		if out, f, err := s.red.JSON(payload); err == nil {
			payload, l = out, ledger(f)
		}
	}
	return s.write(envelope.StageNativeOut, envelope.EventHTTPRequest, payload, l, nil, at)
}

// stderr records a raw stderr line, redacted as text.
func (s *sink) stderr(line []byte, at time.Time) int64 {
	var l []envelope.Redaction
	if s.red != nil {
		var f []redact.Finding
		line, f = s.red.Text(line)
		l = ledger(f)
	}
	payload, _ := envelope.EncodeTextLine(line)
	return s.write(envelope.StageNativeIn, envelope.EventStderr, payload, l, nil, at)
}

// stderrRedacted records a stderr line the line redactor released, with
// its ledger: the redaction is done.
func (s *sink) stderrRedacted(line []byte, l []envelope.Redaction, at time.Time) int64 {
	payload, _ := envelope.EncodeTextLine(line)
	return s.write(envelope.StageNativeIn, envelope.EventStderr, payload, l, nil, at)
}

// normalized records an event; its Cause becomes the record's cause.
// again asks for a second redaction of the payload (see assembled).
func (s *sink) normalized(e event.Event, at time.Time, again bool) int64 {
	cause := e.Cause
	e.Cause = nil
	payload, err := envelope.MarshalPayload(e)
	if err != nil {
		payload = []byte("null")
	}
	var l []envelope.Redaction
	if s.red != nil && again {
		// The event came from lines redacted block by block, so this finds
		// nothing unless the normalizer put together text no block covers.
		// Such a finding is kept out of the capture, and counted: evcap
		// normalize of the capture then differs from this record.
		if out, f, err := s.red.JSON(payload); err == nil {
			payload, l = out, ledger(f)
			if len(f) > 0 {
				s.late++
			}
		}
	}
	return s.write(envelope.StageNormalizedOut, string(e.Kind), payload, l, cause, at)
}

// legacy records one marker line; again as for normalized.
func (s *sink) legacy(line string, cause []int64, at time.Time, again bool) int64 {
	b := []byte(line)
	var l []envelope.Redaction
	if s.red != nil && again {
		var f []redact.Finding
		b, f = s.red.Text(b)
		l = ledger(f)
		if len(f) > 0 {
			s.late++
		}
	}
	payload, _ := envelope.EncodeTextLine(b)
	marker := line
	if len(line) > 0 && line[0] == '[' {
		for i := 1; i < len(line); i++ {
			if line[i] == ']' {
				marker = line[:i+1]
				break
			}
			if line[i] == ' ' {
				break
			}
		}
	}
	return s.write(envelope.StageLegacyOut, marker, payload, l, cause, at)
}

// gap records bytes of a stream the capture could not keep.
type gapPayload struct {
	Stream       string `json:"stream"`
	DroppedBytes int64  `json:"droppedBytes"`
	DroppedLines int64  `json:"droppedLines"`
	Reason       string `json:"reason"`
}

func (s *sink) gap(g gapPayload, at time.Time) int64 {
	payload, _ := envelope.MarshalPayload(g)
	return s.write(envelope.StageNativeIn, envelope.EventGap, payload, nil, nil, at)
}

func (s *sink) meta(eventType string, at time.Time, v any) int64 {
	payload, err := envelope.MarshalPayload(v)
	if err != nil {
		payload = []byte("null")
	}
	var l []envelope.Redaction
	if s.red != nil {
		if out, f, err := s.red.JSON(payload); err == nil {
			payload, l = out, ledger(f)
		}
	}
	return s.write(envelope.StageMeta, eventType, payload, l, nil, at)
}

func (s *sink) counts() map[string]int64 {
	out := map[string]int64{}
	for k, v := range s.w.Counts() {
		out[string(k)] = v
	}
	return out
}

// close flushes, syncs and closes the file.
func (s *sink) close() error {
	err := s.w.Close()
	if cerr := s.f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = s.err
	}
	if err != nil {
		return fmt.Errorf("capture %s: %w", s.path, err)
	}
	return nil
}
