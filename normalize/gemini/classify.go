package gemini

import (
	"bytes"

	"github.com/evcap/evcap/event"
	"github.com/evcap/evcap/internal/census"
	"github.com/tidwall/gjson"
)

// knownFields lists the field names seen per native type, from the corpus
// (Gemini CLI 0.61.0) and the stream-json types in docs/formats.md.
var knownFields = map[string][]string{
	"init":        {"type", "timestamp", "session_id", "model"},
	"message":     {"type", "timestamp", "role", "content", "delta"},
	"tool_use":    {"type", "timestamp", "tool_name", "tool_id", "parameters"},
	"tool_result": {"type", "timestamp", "tool_id", "status", "output", "error"},
	"result":      {"type", "timestamp", "status", "error", "stats"},
	"error":       {"type", "timestamp", "severity", "message"},
}

var knownStats = []string{"total_tokens", "input_tokens", "output_tokens", "cached", "input", "duration_ms",
	"tool_calls", "models"}

var knownError = []string{"type", "message", "code"}

// nativeType is the census name of a line: its type, with the role for
// messages ("message/assistant") and the status for results.
func nativeType(v gjson.Result) string {
	typ := v.Get("type").String()
	switch typ {
	case "":
		return census.NoType
	case "message":
		return typ + "/" + v.Get("role").String()
	case "result", "tool_result":
		return typ + "/" + v.Get("status").String()
	case "error":
		return typ + "/" + v.Get("severity").String()
	}
	return typ
}

// Classify reports how Line treats line, for the drift census. It does not
// change the Normalizer.
func (n *Normalizer) Classify(line []byte) event.Classification {
	line = bytes.TrimSuffix(line, []byte("\r"))
	if !gjson.ValidBytes(line) {
		return event.Classification{NativeType: census.Invalid, Disposition: event.DispositionUnknown}
	}
	v := gjson.ParseBytes(line)
	c := event.Classification{NativeType: nativeType(v), Disposition: event.DispositionHandled}
	typ := v.Get("type").String()
	known, ok := knownFields[typ]
	if !ok {
		c.Disposition = event.DispositionUnknown
		return c
	}
	if typ == "message" {
		switch v.Get("role").String() {
		case "user":
			c.Disposition, c.Reason = event.DispositionIgnored, "echo of the user's prompt"
		case "assistant":
		default:
			c.Disposition = event.DispositionUnknown
			return c
		}
	}
	unk := census.AppendSorted(nil, "", v, known)
	if typ == "result" {
		unk = census.AppendSorted(unk, "stats.", v.Get("stats"), knownStats)
	}
	if e := v.Get("error"); e.IsObject() {
		unk = census.AppendSorted(unk, "error.", e, knownError)
	}
	c.UnknownFields = unk
	return c
}
