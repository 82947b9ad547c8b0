package claude

import (
	"bytes"
	"time"

	"github.com/evcap/evcap/event"
	"github.com/evcap/evcap/internal/jsonpick"
	"github.com/evcap/evcap/provider"
	"github.com/tidwall/gjson"
)

// Name is the provider's name in capture envelopes and --provider flags.
const Name = "claude"

// FormatStreamJSON is Claude Code's --output-format stream-json.
const FormatStreamJSON = "stream-json"

// Provider describes Claude Code to the rest of evcap.
func Provider() provider.Descriptor {
	return provider.Descriptor{
		Name:       Name,
		CLI:        "claude",
		NPMPackage: "@anthropic-ai/claude-code",
		System:     "anthropic",
		Detect:     detectLine,
		Normalizer: func(o provider.Options) event.Normalizer {
			return NewWithOptions(Options{CumulativeDeltas: o.CumulativeDeltas})
		},
		History:         func() event.Normalizer { return NewHistory() },
		DetectHistory:   detectHistoryLine,
		HistoryTime:     func(line []byte) time.Time { return rfc3339(line, "timestamp") },
		Deltas:          func() provider.Deltas { return NewDeltas() },
		ReadsCumulative: true,
		VolatileIDKeys: []string{"id", "parent_tool_use_id", "request_id", "sessionId", "session_id",
			"tool_use_id", "uuid"},
		VolatileIDPrefixes: []string{"msg_", "req_", "srvtoolu_", "toolu_"},
		ProjectPaths:       []string{"cwd"},
		Input:              NewInputMatcher,
		// claude -p … --output-format stream-json --verbose: print mode
		// refuses stream-json without --verbose.
		JSONOutputArgs: []string{"--output-format", "stream-json", "--verbose"},
		// $CLAUDE_CONFIG_DIR (~/.claude)/projects/<cwd slug>/<session id>.jsonl,
		// one entry a line (the corpus's history/claude/*/history.jsonl).
		Sessions: provider.SessionStore{DirEnv: "CLAUDE_CONFIG_DIR", HomeDir: ".claude", Path: "projects",
			Suffix: ".jsonl", Depth: 1, NameID: provider.NameStartsWithID,
			ProjectPaths: []string{"cwd"}},
	}
}

// topTypes are the top-level types of Claude Code stream-json lines.
var topTypes = map[string]bool{"system": true, "assistant": true, "user": true, "stream_event": true,
	"result": true, "rate_limit_event": true, "tool_progress": true, "tool_use_summary": true, "auth_status": true}

// detectLine tells a stream-json line: one of Claude Code's top-level
// types together with a session_id string.
func detectLine(line []byte) (string, bool) {
	line = bytes.TrimSpace(line)
	if len(line) == 0 || line[0] != '{' || !jsonpick.Valid(line) {
		return "", false
	}
	v := gjson.GetManyBytes(line, "type", "session_id")
	if v[0].Type == gjson.String && topTypes[v[0].String()] && v[1].Type == gjson.String {
		return FormatStreamJSON, true
	}
	return "", false
}

// detectHistoryLine tells a line of a stored session
// (~/.claude/projects/…/<session>.jsonl): an object with a type and a
// sessionId, uuid or leafUuid.
func detectHistoryLine(line []byte) bool {
	if !jsonpick.Valid(line) {
		return false
	}
	v := gjson.ParseBytes(line)
	return v.IsObject() && v.Get("type").Exists() &&
		(v.Get("sessionId").Exists() || v.Get("uuid").Exists() || v.Get("leafUuid").Exists())
}

// rfc3339 reads the string at one of paths (the first that exists) as an
// RFC 3339 time, in UTC; zero when there is none.
func rfc3339(line []byte, paths ...string) time.Time {
	if !jsonpick.Valid(line) {
		return time.Time{}
	}
	for _, r := range gjson.GetManyBytes(line, paths...) {
		if !r.Exists() {
			continue
		}
		if r.Type != gjson.String {
			return time.Time{}
		}
		t, err := time.Parse(time.RFC3339Nano, r.String())
		if err != nil {
			return time.Time{}
		}
		return t.UTC()
	}
	return time.Time{}
}
