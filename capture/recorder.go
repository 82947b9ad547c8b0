package capture

import (
	"bytes"
	"crypto/rand"
	"fmt"
	"io"
	"os"
	"time"
	"unsafe"

	"github.com/evcap/evcap/envelope"
	"github.com/evcap/evcap/event"
	"github.com/evcap/evcap/internal/jsonpick"
	"github.com/tidwall/gjson"
)

// A recorder (evcap record) knows more about each record than a library
// tap: when the bytes arrived, what the record was derived from, and that
// the payload was already redacted by a stream-aware pass. The *With
// methods take that as a Stamp; the plain taps are the same methods with an
// empty one (plus the cause defaults documented on them).

// Stamp is what a caller knows about a record beyond its payload.
type Stamp struct {
	// At is when the bytes the record stands for arrived; the zero time
	// lets the writer's clock stamp it.
	At time.Time
	// Cause names the records this one was derived from, as given (no
	// default from the latest native record).
	Cause []int64
	// Redacted says the payload was redacted already and Ledger is how:
	// neither Options.Redact nor Redact runs.
	Redacted bool
	Ledger   []envelope.Redaction
	// Redact, when set, replaces Options.Redact for this record.
	Redact func(payload []byte) ([]byte, []envelope.Redaction)
	// CheckedJSON says a native line is known to be one valid JSON value
	// (its redactor walked it and changed nothing): it is stored as JSON
	// without being validated again when nothing surrounds it.
	CheckedJSON bool
}

// Gap is the payload of a native_in gap record: bytes of a stream the
// capture could not keep (passed through, not recorded).
type Gap struct {
	Stream       string `json:"stream"`
	DroppedBytes int64  `json:"droppedBytes"`
	DroppedLines int64  `json:"droppedLines"`
	Reason       string `json:"reason"`
}

// NewFile returns a Capturer writing a new capture to f, a file the caller
// opened (and the Capturer closes): a recorder opens its output before the
// agent starts, so a bad path fails early, and learns the provider only
// from the agent's first lines, when it makes the Capturer.
func NewFile(f *os.File, opts Options) (*Capturer, error) {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	id, err := envelope.NewCaptureID(opts.Now(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("capture id: %w", err)
	}
	d := fileWriter(f, opts)
	c := New(envelope.NewWriter(d, envelope.WriterOptions{CaptureID: id, Now: opts.Now}), opts)
	c.closer, c.path, c.id = d, f.Name(), id
	return c, nil
}

// fileWriter is what the records of a capture file are written through and
// what closes it: the file, or Options.WrapFile's wrapper of it, synced in
// the background as it grows (durableFile); Close syncs the file.
func fileWriter(f *os.File, opts Options) *durableFile {
	var w io.Writer = f
	if opts.WrapFile != nil {
		w = opts.WrapFile(f)
	}
	return newDurableFile(f, w)
}

// NativeWith records a line the agent printed on stdout (native_in). It
// returns the record's sequence number and whether the line was stored as
// the JSON it is (a valid JSON object or array, nothing around it), which
// spares a caller that wants to know a second validation of the line.
func (c *Capturer) NativeWith(line []byte, s Stamp) (seq int64, isJSON bool) {
	if c == nil {
		return 0, false
	}
	c.encMu.Lock()
	payload, eventType := c.nativePayload(line, s.CheckedJSON)
	seq = c.writeStamped(envelope.StageNativeIn, eventType, payload, s)
	c.encMu.Unlock()
	c.mu.Lock()
	c.lastNative = seq
	c.mu.Unlock()
	return seq, eventType != envelope.EventNonJSON
}

// StderrWith records a line the agent wrote to its standard error.
func (c *Capturer) StderrWith(line []byte, s Stamp) int64 {
	if c == nil {
		return 0
	}
	c.encMu.Lock()
	defer c.encMu.Unlock()
	payload, _ := envelope.AppendTextLine(c.enc[:0], line)
	c.keepEnc(payload)
	return c.writeStamped(envelope.StageNativeIn, envelope.EventStderr, payload, s)
}

// InputWith records a line written to the agent's standard input
// (native_out).
func (c *Capturer) InputWith(line []byte, s Stamp) int64 {
	if c == nil {
		return 0
	}
	c.encMu.Lock()
	defer c.encMu.Unlock()
	payload, eventType := c.nativePayload(line, s.CheckedJSON)
	return c.writeStamped(envelope.StageNativeOut, eventType, payload, s)
}

// InputClosed records that the integration closed the agent's standard
// input.
func (c *Capturer) InputClosed(s Stamp) int64 {
	if c == nil {
		return 0
	}
	return c.writeStamped(envelope.StageNativeOut, envelope.EventInputClosed, []byte("null"), s)
}

// RequestWith records an HTTP request made to an agent server on the
// integration's behalf; payload is a Request as JSON.
func (c *Capturer) RequestWith(payload []byte, s Stamp) int64 {
	if c == nil {
		return 0
	}
	return c.writeStamped(envelope.StageNativeOut, envelope.EventHTTPRequest, payload, s)
}

// NormalizedWith records a normalized event; s.Cause (not e.Cause) is the
// record's cause.
func (c *Capturer) NormalizedWith(e event.Event, s Stamp) int64 {
	if c == nil {
		return 0
	}
	c.encMu.Lock()
	defer c.encMu.Unlock()
	c.ev = e
	c.ev.Cause = nil
	payload, err := event.AppendPayload(c.enc[:0], &c.ev)
	c.ev = event.Event{}
	if err != nil {
		payload = []byte(`null`)
	} else {
		c.keepEnc(payload)
	}
	return c.writeStamped(envelope.StageNormalizedOut, string(e.Kind), payload, s)
}

// LegacyWith records one legacy marker line.
func (c *Capturer) LegacyWith(line []byte, s Stamp) int64 {
	if c == nil {
		return 0
	}
	c.encMu.Lock()
	defer c.encMu.Unlock()
	payload, _ := envelope.AppendTextLine(c.enc[:0], line)
	c.keepEnc(payload)
	return c.writeStamped(envelope.StageLegacyOut, c.marker(line), payload, s)
}

// GapWith records bytes of a stream that were not recorded.
func (c *Capturer) GapWith(g Gap, s Stamp) int64 {
	if c == nil {
		return 0
	}
	payload, _ := envelope.MarshalPayload(g)
	return c.writeStamped(envelope.StageNativeIn, envelope.EventGap, payload, s)
}

// MetaWith records a meta record of eventType (capture.start with a
// caller's own fields, say); v is encoded as its payload.
func (c *Capturer) MetaWith(eventType string, v any, s Stamp) int64 {
	if c == nil {
		return 0
	}
	payload, err := envelope.MarshalPayload(v)
	if err != nil {
		payload = []byte("null")
	}
	return c.writeStamped(envelope.StageMeta, eventType, payload, s)
}

// CloseWith writes v as the capture.end record (the caller fills in its
// counts, see Counts) and closes the writer and the file.
func (c *Capturer) CloseWith(v any, s Stamp) error {
	if c == nil {
		return nil
	}
	c.MetaWith(envelope.EventCaptureEnd, v, s)
	err := c.w.Close()
	if c.closer != nil {
		if cerr := c.closer.Close(); err == nil {
			err = cerr
		}
	}
	if err == nil {
		err = c.Err()
	}
	if err != nil {
		return fmt.Errorf("capture %s: %w", c.path, err)
	}
	return nil
}

// Counts returns how many records were written per stage so far.
func (c *Capturer) Counts() map[string]int64 {
	out := map[string]int64{}
	if c == nil {
		return out
	}
	for k, v := range c.w.Counts() {
		out[string(k)] = v
	}
	return out
}

// Sequence returns the sequence number of the latest record.
func (c *Capturer) Sequence() int64 {
	if c == nil {
		return 0
	}
	return c.w.Sequence()
}

// nativePayload is a native line's payload and eventType; a line stored
// as text is built in enc. The caller holds encMu.
func (c *Capturer) nativePayload(line []byte, checked bool) ([]byte, string) {
	var payload []byte
	var kind envelope.NativeLine
	if checked {
		payload, kind = envelope.AppendCheckedLine(c.enc[:0], line)
	} else {
		payload, kind = envelope.AppendNativeLine(c.enc[:0], line)
	}
	if kind == envelope.NativeJSON {
		return payload, c.jsonEventType(line)
	}
	c.keepEnc(payload)
	return payload, envelope.EventNonJSON
}

// markerName is a legacy line's eventType: its "[MARKER]" prefix, or the
// whole line when it has none.
func markerName(line []byte) string {
	if i := indexMarkerEnd(line); i > 0 {
		return string(line[:i])
	}
	return string(line)
}

// maxMarkers bounds the marker names a Capturer keeps for reuse.
const maxMarkers = 256

// marker is markerName with the names seen before reused, not allocated
// again for every legacy record.
func (c *Capturer) marker(line []byte) string {
	i := indexMarkerEnd(line)
	if i <= 0 || i > 64 {
		return markerName(line)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if name, ok := c.markers[string(line[:i])]; ok {
		return name
	}
	name := string(line[:i])
	if len(c.markers) < maxMarkers {
		if c.markers == nil {
			c.markers = map[string]string{}
		}
		c.markers[name] = name
	}
	return name
}

// timestamp is envelope.FormatTimestamp(at), the string of the previous
// call reused when at falls in the same millisecond (a line's normalized
// and legacy records carry its time). The caller holds c.mu.
func (c *Capturer) timestamp(at time.Time) string {
	ms := at.UnixMilli()
	if c.stamp == "" || ms != c.stampMs {
		c.stamp, c.stampMs = envelope.FormatTimestamp(at), ms
	}
	return c.stamp
}

// writeStamped writes one record as s says: its time, its cause and its
// redaction.
func (c *Capturer) writeStamped(stage envelope.Stage, eventType string, payload []byte, s Stamp) int64 {
	c.mu.Lock()
	begin := !c.begun
	c.begun = true
	c.mu.Unlock()
	if begin && eventType != envelope.EventCaptureStart {
		c.writeStart(c.opts.StartInfo)
	}
	ledger := s.Ledger
	switch {
	case s.Redacted:
	case s.Redact != nil:
		payload, ledger = s.Redact(payload)
	case c.opts.Redact != nil:
		payload, ledger = c.opts.Redact(stage, payload)
	}
	at := s.At
	if at.IsZero() && c.opts.Observe != nil {
		// An observer sees the record as written: give it its time.
		at = c.opts.Now()
	}
	c.mu.Lock()
	rec := envelope.Record{Provider: c.opts.Provider, SessionID: c.sessionID, TurnID: c.turnID,
		Stage: stage, EventType: eventType, Payload: payload, Redactions: ledger, Cause: s.Cause}
	if !at.IsZero() {
		rec.Timestamp = c.timestamp(at)
	}
	c.mu.Unlock()
	seq, err := c.w.Write(&rec)
	if err != nil {
		c.mu.Lock()
		if c.err == nil {
			c.err = err
		}
		c.mu.Unlock()
	}
	if c.opts.Observe != nil && err == nil {
		// A copy, so that rec (given to the envelope writer only) stays
		// off the heap when nothing observes.
		obs := new(envelope.Record)
		*obs = rec
		obs.SchemaVersion, obs.CaptureID, obs.Sequence = envelope.SchemaVersion, c.id, seq
		c.opts.Observe(obs)
	}
	return seq
}

// eventTypeKeys are the members NativeEventType reads.
var eventTypeKeys = []string{"type", "subtype"}

// subtypeBytes and unicodeEscape are what a line holding a subtype
// member must contain (jsonEventType).
var subtypeBytes, unicodeEscape = []byte("subtype"), []byte(`\u`)

// maxEventTypes bounds the eventType names a Capturer keeps for reuse.
const maxEventTypes = 256

// jsonEventType is NativeEventType(line) for a line that passed
// envelope's JSON check: the two members are read in one pass over the
// line (gjson.GetManyBytes walks it once per member and copies what it
// returns), and the names seen before are reused rather than allocated
// again for every record. The caller holds encMu.
func (c *Capturer) jsonEventType(line []byte) string {
	// Most lines have no subtype (every streamed delta), and finding that
	// out took a walk of all their members: a line whose bytes hold
	// neither "subtype" nor a \u escape (which could spell it in a key)
	// has none, and the walk stops at its type.
	keys := eventTypeKeys
	if !bytes.Contains(line, subtypeBytes) && !bytes.Contains(line, unicodeEscape) {
		keys = eventTypeKeys[:1]
	}
	jsonpick.Pick(gjson.Parse(unsafe.String(&line[0], len(line))), keys, c.picked[:])
	// The results point into line: the name is built in typeBuf and
	// copied once, when it is new.
	t, st := c.picked[0].String(), c.picked[1]
	c.picked = [2]gjson.Result{}
	if t == "" {
		return "json"
	}
	b := append(c.typeBuf[:0], t...)
	if st.Type == gjson.String && st.Str != "" {
		b = append(append(b, '/'), st.Str...)
	}
	c.typeBuf = b
	if name, ok := c.eventTypes[string(b)]; ok {
		return name
	}
	name := string(b)
	if len(c.eventTypes) < maxEventTypes && len(b) <= 64 {
		if c.eventTypes == nil {
			c.eventTypes = map[string]string{}
		}
		c.eventTypes[name] = name
	}
	return name
}
