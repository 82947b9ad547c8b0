// Package capture lets a Go agent integration record what flows through it,
// without changing its provider logic: wrap the reader of the agent's raw
// output, the callback that receives normalized events and the writer of
// legacy markers, and every item becomes a record in an evcap capture.
//
// Capture is opt-in: FromEnv returns a nil *Capturer when EVCAP_CAPTURE is
// unset, and every method of a nil *Capturer passes things through
// untouched. Taps never change what the integration sees: bytes read are
// returned as read, events are handed on as received, writes go through.
//
// The package does not parse provider formats or decide what is secret: it
// hands every payload to a redaction Hook before writing it.
package capture

import (
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"sync"
	"time"

	"github.com/evcap/evcap/envelope"
	"github.com/evcap/evcap/event"
	"github.com/evcap/evcap/internal/lines"
	"github.com/tidwall/gjson"
)

// Hook rewrites a payload before it is written (redaction) and returns the
// ledger of what it changed. It must not keep payload.
type Hook func(stage envelope.Stage, payload []byte) ([]byte, []envelope.Redaction)

// Options configure a Capturer.
type Options struct {
	// Provider is stamped on every record ("claude", "codex", ...).
	Provider string
	// Redact is applied to every payload; nil writes payloads unchanged.
	Redact Hook
	// Now is the clock for durations; time.Now when nil.
	Now func() time.Time
	// AutoStart: write a capture.start record (from StartInfo) before the
	// first other record unless Begin was called first. FromEnv sets it.
	AutoStart bool
	// StartInfo is what an automatic capture.start says.
	StartInfo Start
	// Observe, when set, sees every record right after it was written,
	// stamped as in the file (its time, capture id when the Capturer made
	// the file, sequence). It runs on the writing goroutine: it must
	// return at once and must not keep rec or its slices.
	Observe func(rec *envelope.Record)
	// WrapFile, when set, wraps the file a Capturer opens or is given
	// (Open, NewFile) for writing: the records go through what it returns
	// (a recorder times the writes to tell a stuck disk from a slow
	// pipeline). Close still syncs and closes the file itself.
	WrapFile func(io.Writer) io.Writer
}

// Capturer writes the taps of one integration run into an envelope.Writer.
// It is safe for concurrent use by several taps.
type Capturer struct {
	w    *envelope.Writer
	opts Options

	mu         sync.Mutex
	sessionID  string
	turnID     string
	lastNative int64
	started    time.Time
	closer     io.Closer
	path       string
	id         string // the capture id, when the Capturer made the file
	err        error
	// begun: capture.start is written (or, without AutoStart, not wanted).
	begun bool
	// stamp is the last timestamp written, of the millisecond stampMs;
	// markers the legacy marker names seen (see marker).
	stamp   string
	stampMs int64
	markers map[string]string

	// enc is the buffer payloads the Capturer encodes itself (normalized
	// events, text lines) are built in, and ev the event being encoded
	// (a copy of the caller's, which would otherwise escape each time);
	// encMu is held while they are in use, from encoding to the record's
	// write, which copies the payload out.
	encMu sync.Mutex
	enc   []byte
	ev    event.Event
	// picked, typeBuf and eventTypes serve jsonEventType (under encMu).
	picked     [2]gjson.Result
	typeBuf    []byte
	eventTypes map[string]string
}

// maxEncKept bounds the encoding buffer kept for the next payload.
const maxEncKept = 1 << 20

// keepEnc keeps b, the buffer a payload was built in, for the next one.
// The caller holds encMu.
func (c *Capturer) keepEnc(b []byte) {
	if cap(b) > maxEncKept {
		c.enc = nil
		return
	}
	c.enc = b[:0]
}

// New returns a Capturer writing to w.
func New(w *envelope.Writer, opts Options) *Capturer {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &Capturer{w: w, opts: opts, started: opts.Now(), begun: !opts.AutoStart}
}

// SetSession sets the session and turn ids stamped on later records.
func (c *Capturer) SetSession(sessionID, turnID string) {
	if c == nil {
		return
	}
	c.mu.Lock()
	c.sessionID, c.turnID = sessionID, turnID
	c.mu.Unlock()
}

// Err returns the first error met while writing; taps never return it to
// the integration, so callers that care ask here.
func (c *Capturer) Err() error {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

func (c *Capturer) write(stage envelope.Stage, eventType string, payload []byte, cause []int64) int64 {
	return c.writeStamped(stage, eventType, payload, Stamp{Cause: cause})
}

// Native records one line the agent printed (without its newline) as a
// native_in record and returns its sequence number, for use as a cause.
func (c *Capturer) Native(line []byte) int64 {
	if c == nil {
		return 0
	}
	seq, _ := c.NativeWith(line, Stamp{})
	return seq
}

// Stderr records one line the agent wrote to its standard error.
func (c *Capturer) Stderr(line []byte) int64 {
	if c == nil {
		return 0
	}
	return c.StderrWith(line, Stamp{})
}

// NativeEventType names a provider JSON line by its "type" field, adding
// "subtype" when there is one ("system/init"); "json" when it has neither.
func NativeEventType(line []byte) string {
	res := gjson.GetManyBytes(line, "type", "subtype")
	t := res[0].String()
	if t == "" {
		return "json"
	}
	if st := res[1].String(); st != "" && res[1].Type == gjson.String {
		return t + "/" + st
	}
	return t
}

// Normalized records a normalized event. When the event carries no Cause,
// the latest native_in record is taken as its cause: integrations derive
// events from the line they just read.
func (c *Capturer) Normalized(e event.Event) int64 {
	if c == nil {
		return 0
	}
	cause := e.Cause
	if len(cause) == 0 {
		c.mu.Lock()
		if c.lastNative > 0 {
			cause = []int64{c.lastNative}
		}
		c.mu.Unlock()
	}
	// The record's cause field holds it; keep one source of truth.
	return c.NormalizedWith(e, Stamp{Cause: cause})
}

// Legacy records one legacy marker line ("[CONTENT_DELTA] \"hi\"").
func (c *Capturer) Legacy(line []byte, cause []int64) int64 {
	if c == nil {
		return 0
	}
	if len(cause) == 0 {
		c.mu.Lock()
		if c.lastNative > 0 {
			cause = []int64{c.lastNative}
		}
		c.mu.Unlock()
	}
	return c.LegacyWith(line, Stamp{Cause: cause})
}

func indexMarkerEnd(line []byte) int {
	if len(line) == 0 || line[0] != '[' {
		return -1
	}
	for i, b := range line {
		if b == ']' {
			return i + 1
		}
		if b == ' ' {
			return -1
		}
	}
	return -1
}

// WrapReader returns a reader that yields exactly the bytes of r and
// records each complete line as native_in. A last line without newline is
// recorded when r reports io.EOF.
func (c *Capturer) WrapReader(r io.Reader) io.Reader {
	if c == nil {
		return r
	}
	return &tapReader{r: r, split: lines.Splitter{Fn: func(l []byte) { c.Native(l) }}}
}

type tapReader struct {
	r     io.Reader
	split lines.Splitter
	eof   bool
}

func (t *tapReader) Read(p []byte) (int, error) {
	n, err := t.r.Read(p)
	if n > 0 {
		t.split.Write(p[:n])
	}
	if err == io.EOF && !t.eof {
		t.eof = true
		if rest := t.split.Pending(); rest != nil {
			t.split.Fn(rest)
		}
	}
	return n, err
}

// WrapEvents returns a callback that records each event as normalized_out
// and then calls fn with the event exactly as received.
func (c *Capturer) WrapEvents(fn func(event.Event)) func(event.Event) {
	if c == nil {
		return fn
	}
	return func(e event.Event) {
		c.Normalized(e)
		fn(e)
	}
}

// WrapLegacy returns a writer that passes every write to w unchanged and
// records each complete marker line as legacy_out.
func (c *Capturer) WrapLegacy(w io.Writer) io.Writer {
	if c == nil {
		return w
	}
	return &tapWriter{w: w, split: lines.Splitter{Fn: func(l []byte) { c.Legacy(l, nil) }}}
}

type tapWriter struct {
	w     io.Writer
	split lines.Splitter
}

func (t *tapWriter) Write(p []byte) (int, error) {
	n, err := t.w.Write(p)
	t.split.Write(p[:n])
	return n, err
}

// Start describes the run, for the capture.start record.
type Start struct {
	EvcapVersion string   `json:"evcapVersion"`
	Provider     string   `json:"provider"`
	Argv         []string `json:"argv,omitempty"`
	CLIName      string   `json:"cliName,omitempty"`
	CLIVersion   string   `json:"cliVersion,omitempty"`
	OS           string   `json:"os"`
	Arch         string   `json:"arch"`
}

// Begin writes the capture.start record. OS and Arch default to the
// running platform. Argv must already have its secrets removed (the
// redaction hook sees the payload too). A Capturer from FromEnv writes one
// itself before its first record; Begin called before that replaces it,
// called after it does nothing.
func (c *Capturer) Begin(s Start) {
	if c == nil {
		return
	}
	c.mu.Lock()
	if c.begun && c.opts.AutoStart {
		c.mu.Unlock()
		return
	}
	c.begun = true
	c.mu.Unlock()
	c.writeStart(s)
}

func (c *Capturer) writeStart(s Start) {
	if s.OS == "" {
		s.OS = runtime.GOOS
	}
	if s.Arch == "" {
		s.Arch = runtime.GOARCH
	}
	if s.Provider == "" {
		s.Provider = c.opts.Provider
	}
	payload, _ := envelope.MarshalPayload(s)
	c.write(envelope.StageMeta, envelope.EventCaptureStart, payload, nil)
}

// End describes how the run ended, for the capture.end record.
type End struct {
	// ExitCode is the agent's exit status, or nil when it died by a signal
	// or was not a process.
	ExitCode *int   `json:"exitCode"`
	Signal   string `json:"signal,omitempty"`
	// CleanEnd is true when the stream ended with a newline after the
	// last line and the agent exited on its own.
	CleanEnd   bool             `json:"cleanEnd"`
	DurationMs int64            `json:"durationMs"`
	Counts     map[string]int64 `json:"counts"`
	Notes      []string         `json:"notes,omitempty"`
}

// Close writes the capture.end record (counts per stage are filled in) and
// closes the writer. It returns the first write error of the capture.
func (c *Capturer) Close(end End) error {
	if c == nil {
		return nil
	}
	end.DurationMs = c.opts.Now().Sub(c.started).Milliseconds()
	counts := c.w.Counts()
	counts[envelope.StageMeta]++ // this record
	end.Counts = map[string]int64{}
	for k, v := range counts {
		end.Counts[string(k)] = v
	}
	payload, _ := envelope.MarshalPayload(end)
	c.write(envelope.StageMeta, envelope.EventCaptureEnd, payload, nil)
	err := c.w.Close()
	if c.closer != nil {
		if cerr := c.closer.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		return fmt.Errorf("capture: %w", err)
	}
	return c.Err()
}

// Request is the payload of a native_out http.request record: a request
// made to an agent server on the integration's behalf. Body is the
// request body when it is JSON (null otherwise).
type Request struct {
	Method string          `json:"method"`
	Path   string          `json:"path"`
	Body   json.RawMessage `json:"body"`
}

// Input records one line the integration wrote to the agent's standard
// input (without its newline) as a native_out record.
func (c *Capturer) Input(line []byte) int64 {
	if c == nil {
		return 0
	}
	return c.InputWith(line, Stamp{})
}

// WrapInput returns a writer that passes every write to w (the agent's
// stdin) unchanged and records each complete line as native_out.
func (c *Capturer) WrapInput(w io.Writer) io.Writer {
	if c == nil {
		return w
	}
	return &tapWriter{w: w, split: lines.Splitter{Fn: func(l []byte) { c.Input(l) }}}
}

// Handler records a value the integration's own event handler received
// (its own types, anything encoding/json can encode) as a handler_in
// record, eventType kind. Replay compares these like any other stage, so
// a regression in the integration's layer between the normalized events
// and its UI shows up as a diff. It returns the record's sequence number.
func (c *Capturer) Handler(kind string, v any) int64 {
	return c.tap(envelope.StageHandlerIn, kind, v)
}

// Render records a value the integration's UI layer received (a chat
// message update, a view model) as a render_in record, eventType kind.
func (c *Capturer) Render(kind string, v any) int64 {
	return c.tap(envelope.StageRenderIn, kind, v)
}

func (c *Capturer) tap(stage envelope.Stage, kind string, v any) int64 {
	if c == nil {
		return 0
	}
	payload, err := envelope.MarshalPayload(v)
	if err != nil {
		c.mu.Lock()
		if c.err == nil {
			c.err = fmt.Errorf("capture: %s %q: %w", stage, kind, err)
		}
		c.mu.Unlock()
		return 0
	}
	return c.write(stage, kind, payload, nil)
}

// WrapHandler returns fn with every value it is called with recorded as
// handler_in first (eventType kind(v)).
func WrapHandler[T any](c *Capturer, kind func(T) string, fn func(T)) func(T) {
	if c == nil {
		return fn
	}
	return func(v T) {
		c.Handler(kind(v), v)
		fn(v)
	}
}
