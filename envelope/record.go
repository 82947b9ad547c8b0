// Package envelope is evcap's capture format, version 1: one JSON object
// per line, each wrapping one event seen at one stage of an agent
// integration, numbered by a gapless sequence.
//
// A line looks like this (wrapped here; one line in the file):
//
//	{"schemaVersion":1,"captureId":"01JDX…","sequence":7,"timestamp":"2026-11-29T19:32:05.163Z",
//	 "provider":"claude","sessionId":"6c66…","turnId":"1","stage":"native_in",
//	 "eventType":"stream_event","payload":{…the provider's line, byte for byte…},"redactions":[]}
//
// Writer assigns sequence numbers and writes whole lines; Reader streams
// records back in constant memory, keeps fields it does not know, reports
// bad lines with their file and line number, and upgrades older versions
// through registered functions. ParallelReader gives the same records and
// errors but reads and parses ahead of its caller on goroutines of its own,
// for a caller whose own work per record is about as long as parsing it.
//
// The package does not know provider formats, normalized events or
// redaction rules: it moves payloads byte-exact and records what others
// tell it about them.
package envelope

import (
	"encoding/json"
	"errors"
)

// SchemaVersion is the version of the capture format this package writes.
const SchemaVersion = 1

// Stage says where in an integration a record was tapped.
type Stage string

// The stages of a capture.
const (
	// StageNativeIn: a line the agent CLI printed (or a stderr line).
	StageNativeIn Stage = "native_in"
	// StageNativeOut: what the integration sent to the agent: a line it
	// wrote to the CLI's stdin (stream-json input: user messages,
	// control_response, interrupts), or an HTTP request made to an agent
	// server (eventType http.request).
	StageNativeOut Stage = "native_out"
	// StageNormalizedOut: a normalized event (package event) as JSON.
	StageNormalizedOut Stage = "normalized_out"
	// StageLegacyOut: a compatibility marker line, e.g. [CONTENT_DELTA].
	StageLegacyOut Stage = "legacy_out"
	// StageHandlerIn: what an integration's event handler received.
	StageHandlerIn Stage = "handler_in"
	// StageRenderIn: what a renderer received.
	StageRenderIn Stage = "render_in"
	// StageMeta: capture lifecycle records (capture.start, capture.end).
	StageMeta Stage = "meta"
)

// Stages returns every stage in pipeline order (a fresh slice each call).
func Stages() []Stage { return append([]Stage(nil), stages...) }

var stages = []Stage{StageNativeIn, StageNativeOut, StageNormalizedOut, StageLegacyOut, StageHandlerIn, StageRenderIn, StageMeta}

// Valid reports whether s is one of the known stages.
func (s Stage) Valid() bool {
	for _, k := range stages {
		if s == k {
			return true
		}
	}
	return false
}

// Event types of meta records and of native lines that are not provider JSON.
const (
	EventCaptureStart = "capture.start"
	EventCaptureEnd   = "capture.end"
	// EventNonJSON: a native line that is not JSON; the payload is the line
	// as a JSON string (or base64, see EncodeNativeLine).
	EventNonJSON = "non_json"
	// EventStderr: a line the agent CLI wrote to stderr.
	EventStderr = "stderr"
	// EventGap: bytes the capture had to drop (the payload says how many).
	EventGap = "gap"
	// EventHTTPRequest: a native_out record of an HTTP request; the payload
	// is {"method","path","body"} (capture.Request).
	EventHTTPRequest = "http.request"
	// SourceHistory is the source of native_in records imported from a
	// CLI's stored session (evcap import): stored entries, read with the
	// provider's history normalizer, not lines of a live stream.
	SourceHistory = "history"
	// EventInputClosed: a native_out record saying the integration closed
	// the agent's standard input (payload null).
	EventInputClosed = "stdin.closed"
)

// EventControlResponse is the eventType of a stream-json control_response
// line an integration wrote to the agent's stdin (a native_out record): the
// answer to a permission prompt or another control request.
const EventControlResponse = "control_response"

// Normalized reports whether a record of this stage and eventType is read
// by the provider's normalizer: every native line the CLI printed (not
// stderr, not gaps), and the control_response lines the integration sent
// it, which carry the replies to permission prompts. It is the one rule
// recording, replay and normalize share, so that normalizing a capture
// again gives back its normalized_out.
func Normalized(stage Stage, eventType string) bool {
	switch stage {
	case StageNativeIn:
		return eventType != EventStderr && eventType != EventGap
	case StageNativeOut:
		return eventType == EventControlResponse
	}
	return false
}

// Redaction is one entry of a record's redaction ledger: what rule changed
// how many values at which place, and how long the original was. It never
// holds the secret or a hash of it.
type Redaction struct {
	Rule           string `json:"rule"`
	Pointer        string `json:"pointer"`
	Count          int    `json:"count"`
	OriginalLength int    `json:"originalLength"`
}

// Record is one line of a capture.
type Record struct {
	SchemaVersion int    `json:"schemaVersion"`
	CaptureID     string `json:"captureId"`
	Sequence      int64  `json:"sequence"`
	// Timestamp is RFC 3339 with milliseconds, UTC. It is for diagnostics
	// only: replay orders by Sequence.
	Timestamp string `json:"timestamp"`
	Provider  string `json:"provider"`
	SessionID string `json:"sessionId"`
	TurnID    string `json:"turnId"`
	Stage     Stage  `json:"stage"`
	EventType string `json:"eventType"`
	// Payload is raw JSON, written and read back byte for byte.
	Payload    json.RawMessage `json:"payload"`
	Redactions []Redaction     `json:"redactions"`

	Model          string `json:"model,omitempty"`
	Agent          string `json:"agent,omitempty"`
	PermissionMode string `json:"permissionMode,omitempty"`
	CwdHash        string `json:"cwdHash,omitempty"`
	ProjectHash    string `json:"projectHash,omitempty"`
	Source         string `json:"source,omitempty"`
	Notes          string `json:"notes,omitempty"`
	// Cause lists the sequence numbers of the native_in records a
	// normalized_out or legacy_out record was derived from.
	Cause []int64 `json:"cause,omitempty"`

	// Extra keeps fields this version does not know, raw, in the order
	// they appeared, so that a rewrite does not lose them.
	Extra []Field `json:"-"`
}

// Field is a JSON member kept verbatim.
type Field struct {
	Key   string
	Value json.RawMessage
	// RawKey is the key as it was spelled in the file (with its quotes);
	// when set it is written instead of Key, so escapes survive a rewrite.
	RawKey json.RawMessage
}

// Clone returns a deep copy of r.
func (r *Record) Clone() *Record {
	c := *r
	c.Payload = append(json.RawMessage(nil), r.Payload...)
	c.Redactions = append([]Redaction(nil), r.Redactions...)
	c.Cause = append([]int64(nil), r.Cause...)
	c.Extra = make([]Field, len(r.Extra))
	for i, f := range r.Extra {
		c.Extra[i] = Field{Key: f.Key, Value: append(json.RawMessage(nil), f.Value...), RawKey: append(json.RawMessage(nil), f.RawKey...)}
	}
	if r.Extra == nil {
		c.Extra = nil
	}
	return &c
}

// Sentinel errors callers test with errors.Is.
var (
	// ErrUnsupportedVersion: the record's schemaVersion is neither this
	// version nor one an upgrade is registered for.
	ErrUnsupportedVersion = errors.New("unsupported schemaVersion")
	// ErrTornLine: the capture ends with a line that has no newline,
	// typically because the writer was killed mid-write.
	ErrTornLine = errors.New("torn last line (no newline at end of capture)")
	// ErrInvalidLine: a line is not a valid record.
	ErrInvalidLine = errors.New("invalid record")
)
