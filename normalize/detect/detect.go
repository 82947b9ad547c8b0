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
//
// The rules live in each provider's descriptor (normalize/<provider>,
// Provider().Detect) and the registry (package providers); this package
// keeps the Match API for its callers on top of them.
package detect

import (
	"github.com/evcap/evcap/normalize/claude"
	"github.com/evcap/evcap/normalize/codex"
	"github.com/evcap/evcap/normalize/gemini"
	"github.com/evcap/evcap/normalize/opencode"
	"github.com/evcap/evcap/providers"
)

// The providers Detect can name. They match the provider names used
// elsewhere in evcap (capture envelopes, normalize/<provider>).
const (
	Claude   = claude.Name
	Codex    = codex.Name
	OpenCode = opencode.Name
	Gemini   = gemini.Name
)

// The output formats Detect can name.
const (
	FormatStreamJSON = claude.FormatStreamJSON // Claude Code and Gemini CLI --output-format stream-json
	FormatExecJSON   = codex.FormatExecJSON    // codex exec --json (thread/turn/item events, 0.44 and later)
	// FormatExecJSONItemType is codex exec --experimental-json of 0.42–0.43
	// (session.created, items typed by item_type).
	FormatExecJSONItemType = codex.FormatExecJSONItemType
	// FormatExecJSONLegacy is codex exec --json before 0.44 (and codex
	// proto): {"id","msg":{"type":…}} events.
	FormatExecJSONLegacy = codex.FormatExecJSONLegacy
	FormatRunJSON        = opencode.FormatRunJSON  // opencode run --format json
	FormatSSE            = opencode.FormatSSE      // opencode /event as raw SSE text
	FormatBusJSONL       = opencode.FormatBusJSONL // opencode /event payloads, one per line
)

// Match is a verdict: which provider, in which of its formats.
type Match struct {
	Provider string
	Format   string
}

// Detect judges the first lines of a stream (without their newlines) and
// returns the first verdict. ok is false when no line fits any provider.
func Detect(firstLines [][]byte) (m Match, ok bool) {
	d, f, ok := providers.DetectStream(firstLines)
	if !ok {
		return Match{}, false
	}
	return Match{d.Name, f}, true
}

// Line judges one line on its own.
func Line(line []byte) (Match, bool) {
	d, f, ok := providers.Detect(line)
	if !ok {
		return Match{}, false
	}
	return Match{d.Name, f}, true
}
