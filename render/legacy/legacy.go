// Package legacy derives the compatibility marker lines of IDE bridges (the
// legacy_out stage) from normalized events: events in, text out. It knows
// nothing of providers, envelopes or files, and the derivation is
// deterministic: the same events always give the same lines.
//
// # Grammar
//
// One marker per line; a marker is a bracketed name, then, for markers
// with a payload, one space and the payload. JSON payloads are compact
// (no spaces), HTML characters unescaped, keys always present and in the
// order shown:
//
//	[STREAM_START]
//	[SESSION_ID] <id>                  id as is, control characters removed
//	[MESSAGE_START]
//	[CONTENT_DELTA] <json string>      "Hello a"
//	[THINKING_DELTA] <json string>
//	[TOOL_USE] {"id":"…","name":"…","summary":"…"}
//	[TOOL_RESULT] {"id":"…","isError":false,"output":"…"}
//	[USAGE] {"inputTokens":0,"outputTokens":0,"cacheReadTokens":0,"cacheWriteTokens":0,"reasoningTokens":0,"cumulative":false}
//	[RETRY] {"attempt":1,"maxRetries":0,"delayMs":0,"status":0,"error":"…"}
//	[SEND_ERROR] {"type":"…","message":"…"}
//	[MESSAGE_END]
//	[STREAM_END]
//
// # Derivation
//
//   - The first event opens the stream: [STREAM_START].
//   - An event with a session id different from the last one announced
//     gives [SESSION_ID].
//   - text, thinking and tool events belong to a message: the first one
//     while no message is open gives [MESSAGE_START]; one whose message id
//     differs from the open message's (both non-empty) gives [MESSAGE_END]
//     and [MESSAGE_START]. tool_result and usage events neither open nor
//     close messages.
//   - A text or thinking delta gives [CONTENT_DELTA] or [THINKING_DELTA]
//     with the piece. A completed text or thinking block whose deltas were
//     seen (same kind, message id and part id) gives nothing, so no text is
//     sent twice; one with no deltas before it gives one delta marker with
//     the whole text (when not empty). started events give nothing.
//   - A completed tool event gives [TOOL_USE], once per tool call id; its
//     started and updated events give nothing. Raw input is never written.
//   - tool_result gives [TOOL_RESULT] (the already cut display output),
//     usage gives [USAGE], retry gives [RETRY].
//   - A fatal error closes the open message and gives [SEND_ERROR]; a
//     non-fatal error gives nothing.
//   - A result closes the open message; a failed result gives [SEND_ERROR]
//     with its subtype and text (or subtype) unless a fatal error already
//     did since the previous result.
//   - init, status, permission and unknown events give nothing beyond the
//     markers above.
//   - End closes the open message and gives [STREAM_END] when the stream
//     was opened.
//
// Every Marker says which events it came from (From: their positions in the
// order fed, from 0) and carries the union of their Cause, so a caller can
// point a legacy_out record at the native lines behind it. The markers End
// adds come from no event: their From and Cause are empty.
package legacy

import (
	"bytes"
	"encoding/json"
	"strings"
	"unicode"

	"github.com/evcap/evcap/event"
)

// Marker is one legacy line, without its newline.
type Marker struct {
	Line  string
	From  []int
	Cause []int64
}

// Deriver turns events into markers, keeping the stream and message state
// between events. Use one per stream, made with New.
type Deriver struct {
	next      int // position of the next event
	started   bool
	session   string
	msgOpen   bool
	msgID     string
	streamed  map[streamKey]bool
	toolsSent map[string]bool
	sentError bool
	// buf is where quoted builds a marker line.
	buf []byte
	// out is the array Event returns, reused; from and cause are where
	// the markers' From and Cause slices are cut from, a chunk at a time
	// (never reused: a caller may keep a marker).
	out   []Marker
	from  []int
	cause []int64
}

// streamKey names a streamed text or thinking part.
type streamKey struct {
	kind            event.Kind
	message, partID string
}

// New returns a Deriver for a new stream.
func New() *Deriver {
	return &Deriver{streamed: map[streamKey]bool{}, toolsSent: map[string]bool{}}
}

// Derive is the whole derivation of a finished event sequence.
func Derive(evs []event.Event) []Marker {
	d := New()
	var out []Marker
	for _, e := range evs {
		out = append(out, d.Event(e)...)
	}
	return append(out, d.End()...)
}

// Event derives the markers of the next event. The returned slice is
// valid until the next call of Event; the markers in it stay valid.
func (d *Deriver) Event(e event.Event) []Marker {
	i := d.next
	d.next++
	out := d.out[:0]
	add := func(line string) {
		out = append(out, Marker{Line: line, From: d.fromOf(i), Cause: d.causeOf(e.Cause)})
	}
	if !d.started {
		d.started = true
		add("[STREAM_START]")
	}
	if e.SessionID != "" && e.SessionID != d.session {
		d.session = e.SessionID
		add("[SESSION_ID] " + stripControl(e.SessionID))
	}
	switch e.Kind {
	case event.KindText, event.KindThinking, event.KindTool:
		if d.msgOpen && e.MessageID != "" && d.msgID != "" && e.MessageID != d.msgID {
			d.msgOpen = false
			add(messageEnd)
		}
		if !d.msgOpen {
			d.msgOpen, d.msgID = true, e.MessageID
			add(messageStart)
		} else if d.msgID == "" {
			d.msgID = e.MessageID
		}
	}
	switch e.Kind {
	case event.KindText, event.KindThinking:
		name := ContentDelta + " "
		if e.Kind == event.KindThinking {
			name = ThinkingDelta + " "
		}
		key := streamKey{e.Kind, e.MessageID, e.PartID}
		switch e.Phase {
		case event.PhaseDelta:
			d.streamed[key] = true
			add(d.quoted(name, e.Text))
		case event.PhaseCompleted:
			if d.streamed[key] {
				delete(d.streamed, key)
			} else if e.Text != "" {
				add(d.quoted(name, e.Text))
			}
		}
	case event.KindTool:
		if e.Phase == event.PhaseCompleted && e.Tool != nil {
			if e.ToolCallID == "" || !d.toolsSent[e.ToolCallID] {
				d.toolsSent[e.ToolCallID] = e.ToolCallID != ""
				add("[TOOL_USE] " + compact(toolUse{e.ToolCallID, e.Tool.Name, e.Tool.Summary}))
			}
		}
	case event.KindToolResult:
		if r := e.ToolResult; r != nil {
			add("[TOOL_RESULT] " + compact(toolResult{e.ToolCallID, r.IsError, r.Output}))
		}
	case event.KindUsage:
		if u := e.Usage; u != nil {
			add("[USAGE] " + compact(usage{u.InputTokens, u.OutputTokens, u.CacheReadTokens,
				u.CacheWriteTokens, u.ReasoningTokens, u.Cumulative}))
		}
	case event.KindRetry:
		if r := e.Retry; r != nil {
			add("[RETRY] " + compact(retry{r.Attempt, r.MaxRetries, r.DelayMs, r.Status, r.Error}))
		}
	case event.KindError:
		if e.Error != nil && e.Error.Fatal {
			if d.msgOpen {
				d.msgOpen, d.msgID = false, ""
				add(messageEnd)
			}
			d.sentError = true
			add("[SEND_ERROR] " + compact(sendError{e.Error.Type, e.Error.Message}))
		}
	case event.KindResult:
		if d.msgOpen {
			d.msgOpen, d.msgID = false, ""
			add(messageEnd)
		}
		if r := e.Result; r != nil && r.IsError && !d.sentError {
			msg := r.Text
			if msg == "" {
				msg = r.Subtype
			}
			add("[SEND_ERROR] " + compact(sendError{r.Subtype, msg}))
		}
		d.sentError = false
	}
	d.out = out[:0]
	return out
}

// markChunk is how many From (and Cause) elements one allocation holds.
const markChunk = 128

// fromOf returns a one-element From slice holding i, its length its
// capacity, so that a caller's append copies it.
func (d *Deriver) fromOf(i int) []int {
	if len(d.from) == cap(d.from) {
		d.from = make([]int, 0, markChunk)
	}
	d.from = append(d.from, i)
	n := len(d.from)
	return d.from[n-1 : n : n]
}

// causeOf returns a copy of cause, its length its capacity; nil for none.
func (d *Deriver) causeOf(cause []int64) []int64 {
	if len(cause) == 0 {
		return nil
	}
	if len(cause) > markChunk/4 {
		return append([]int64(nil), cause...)
	}
	if cap(d.cause)-len(d.cause) < len(cause) {
		d.cause = make([]int64, 0, markChunk)
	}
	n := len(d.cause)
	d.cause = append(d.cause, cause...)
	return d.cause[n:len(d.cause):len(d.cause)]
}

// End closes the open message and the stream.
func (d *Deriver) End() []Marker {
	var out []Marker
	if d.msgOpen {
		d.msgOpen, d.msgID = false, ""
		out = append(out, Marker{Line: messageEnd})
	}
	if d.started {
		d.started = false
		out = append(out, Marker{Line: streamEnd})
	}
	return out
}

// The JSON payloads; field order is the key order of the grammar.
type toolUse struct {
	ID      string `json:"id"`
	Name    string `json:"name"`
	Summary string `json:"summary"`
}

type toolResult struct {
	ID      string `json:"id"`
	IsError bool   `json:"isError"`
	Output  string `json:"output"`
}

type usage struct {
	InputTokens      int64 `json:"inputTokens"`
	OutputTokens     int64 `json:"outputTokens"`
	CacheReadTokens  int64 `json:"cacheReadTokens"`
	CacheWriteTokens int64 `json:"cacheWriteTokens"`
	ReasoningTokens  int64 `json:"reasoningTokens"`
	Cumulative       bool  `json:"cumulative"`
}

type retry struct {
	Attempt    int    `json:"attempt"`
	MaxRetries int    `json:"maxRetries"`
	DelayMs    int64  `json:"delayMs"`
	Status     int    `json:"status"`
	Error      string `json:"error"`
}

type sendError struct {
	Type    string `json:"type"`
	Message string `json:"message"`
}

// quoted is name + compact(text), built in d.buf: a delta marker per
// streamed delta made an encoder, a buffer and two strings each.
func (d *Deriver) quoted(name, text string) string {
	d.buf = event.AppendString(append(d.buf[:0], name...), text)
	line := string(d.buf)
	if cap(d.buf) > 64<<10 {
		d.buf = nil // a long text's buffer is not kept for the deltas after it
	}
	return line
}

// compact encodes v as one line of JSON without HTML escaping. The values
// are plain strings, numbers and structs of them, which cannot fail to
// encode.
func compact(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic("legacy: encoding a marker payload: " + err.Error())
	}
	return strings.TrimSuffix(b.String(), "\n")
}

func stripControl(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return -1
		}
		return r
	}, s)
}
