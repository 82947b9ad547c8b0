// Package detect tells which agent CLI printed a stream, from its first
// lines: Claude Code stream-json, Codex exec --json, opencode run --format
// json, the opencode server /event bus (raw SSE or one JSON payload per
// line) or Gemini CLI stream-json.
//
// Each line is judged on its own by the shape only the one provider prints:
//
//	Claude Code   type system|assistant|user|stream_event|result|rate_limit_event|
//	              tool_progress|tool_use_summary|auth_status, with a session_id
//	Codex         type thread.*|turn.*|item.*, or a bare {"type":"error","message"};
//	              session.created, or an item with item_type (--experimental-json of 0.42–0.43);
//	              {"id","msg":{"type":…}}, or the configuration summary line
//	              {"model","sandbox"|"approval","workdir",…} (--json before 0.44)
//	opencode run  type + sessionID + part (or error, or done)
//	opencode bus  {"type", "properties":{...}}, behind "data:" when raw SSE
//	Gemini CLI    an ISO timestamp string plus: init+session_id, message+role,
//	              tool_use+tool_name, tool_result+tool_id, result+status,
//	              error+severity
//
// Detect returns the verdict of the first line that has one; blank lines,
// SSE framing lines and lines that fit nobody are skipped. It does not read
// anything itself and does not validate the rest of the stream.
package detect

import (
	"bytes"
	"strings"

	"github.com/tidwall/gjson"
)

// The providers Detect can name. They match the provider names used
// elsewhere in evcap (capture envelopes, normalize/<provider>).
const (
	Claude   = "claude"
	Codex    = "codex"
	OpenCode = "opencode"
	Gemini   = "gemini"
)

// The output formats Detect can name.
const (
	FormatStreamJSON = "stream-json" // Claude Code and Gemini CLI --output-format stream-json
	FormatExecJSON   = "exec-json"   // codex exec --json (thread/turn/item events, 0.44 and later)
	// FormatExecJSONItemType is codex exec --experimental-json of 0.42–0.43
	// (session.created, items typed by item_type).
	FormatExecJSONItemType = "exec-json-item-type"
	// FormatExecJSONLegacy is codex exec --json before 0.44 (and codex
	// proto): {"id","msg":{"type":…}} events.
	FormatExecJSONLegacy = "exec-json-legacy"
	FormatRunJSON        = "run-json"  // opencode run --format json
	FormatSSE            = "sse"       // opencode /event as raw SSE text
	FormatBusJSONL       = "bus-jsonl" // opencode /event payloads, one per line
)

// Match is a verdict: which provider, in which of its formats.
type Match struct {
	Provider string
	Format   string
}

// Detect judges the first lines of a stream (without their newlines) and
// returns the first verdict. ok is false when no line fits any provider.
func Detect(firstLines [][]byte) (m Match, ok bool) {
	sse := false
	for _, line := range firstLines {
		line = bytes.TrimSpace(line)
		switch {
		case len(line) == 0:
			continue
		case isSSEField(line):
			sse = true
			continue
		}
		if m, ok := Line(line); ok {
			if sse && m.Format == FormatBusJSONL {
				m.Format = FormatSSE
			}
			return m, true
		}
	}
	return Match{}, false
}

// Line judges one line on its own.
func Line(line []byte) (Match, bool) {
	line = bytes.TrimSpace(line)
	if p, ok := bytes.CutPrefix(line, []byte("data:")); ok {
		if m, ok := judge(bytes.TrimSpace(p)); ok && m.Provider == OpenCode && m.Format == FormatBusJSONL {
			return Match{OpenCode, FormatSSE}, true
		}
		return Match{}, false
	}
	return judge(line)
}

func isSSEField(line []byte) bool {
	for _, p := range []string{":", "event:", "id:", "retry:"} {
		if bytes.HasPrefix(line, []byte(p)) {
			return true
		}
	}
	return false
}

var claudeTypes = map[string]bool{"system": true, "assistant": true, "user": true, "stream_event": true,
	"result": true, "rate_limit_event": true, "tool_progress": true, "tool_use_summary": true, "auth_status": true}

var codexTypes = map[string]bool{"thread.started": true, "turn.started": true, "turn.completed": true,
	"turn.failed": true, "item.started": true, "item.updated": true, "item.completed": true}

// judge looks at one JSON line.
func judge(line []byte) (Match, bool) {
	if len(line) == 0 || line[0] != '{' || !gjson.ValidBytes(line) {
		return Match{}, false
	}
	v := gjson.ParseBytes(line)
	typ := v.Get("type")
	str := func(k string) bool { return v.Get(k).Type == gjson.String }
	if typ.Type != gjson.String {
		switch {
		case v.Get("msg.type").Type == gjson.String && v.Get("id").Type == gjson.String:
			return Match{Codex, FormatExecJSONLegacy}, true
		case !typ.Exists() && str("model") && (v.Get("sandbox").Exists() || v.Get("approval").Exists()) && v.Get("workdir").Exists():
			return Match{Codex, FormatExecJSONLegacy}, true
		}
		return Match{}, false
	}
	t := typ.String()
	switch {
	case v.Get("properties").IsObject():
		return Match{OpenCode, FormatBusJSONL}, true
	case str("sessionID") && (v.Get("part").IsObject() || v.Get("error").IsObject() || t == "done"):
		return Match{OpenCode, FormatRunJSON}, true
	case t == "session.created" && str("session_id") && len(v.Map()) == 2,
		strings.HasPrefix(t, "item.") && v.Get("item.item_type").Type == gjson.String:
		return Match{Codex, FormatExecJSONItemType}, true
	case codexTypes[t]:
		return Match{Codex, FormatExecJSON}, true
	case t == "error" && str("message") && len(v.Map()) == 2:
		return Match{Codex, FormatExecJSON}, true
	case claudeTypes[t] && str("session_id"):
		return Match{Claude, FormatStreamJSON}, true
	case str("timestamp") && geminiShape(t, v):
		return Match{Gemini, FormatStreamJSON}, true
	}
	return Match{}, false
}

func geminiShape(t string, v gjson.Result) bool {
	key := map[string]string{"init": "session_id", "message": "role", "tool_use": "tool_name",
		"tool_result": "tool_id", "result": "status", "error": "severity"}[t]
	return key != "" && v.Get(key).Type == gjson.String
}
