package gemini

import (
	"bytes"
	"time"

	"github.com/evcap/evcap/event"
	"github.com/evcap/evcap/internal/jsonpick"
	"github.com/evcap/evcap/provider"
	"github.com/tidwall/gjson"
)

// Name is the provider's name in capture envelopes and --provider flags.
const Name = "gemini"

// FormatStreamJSON is Gemini CLI's --output-format stream-json.
const FormatStreamJSON = "stream-json"

// Provider describes Gemini CLI to the rest of evcap.
func Provider() provider.Descriptor {
	return provider.Descriptor{
		Name:       Name,
		CLI:        "gemini",
		NPMPackage: "@google/gemini-cli",
		System:     "gcp.gemini",
		Detect:     detectLine,
		Normalizer: func(o provider.Options) event.Normalizer {
			return NewWithOptions(Options{CumulativeDeltas: o.CumulativeDeltas})
		},
		History:       func() event.Normalizer { return NewHistory() },
		DetectHistory: detectHistoryLine,
		HistoryTime: func(line []byte) time.Time {
			return rfc3339(line, "timestamp", "$set.lastUpdated", "startTime", "lastUpdated")
		},
		Deltas:          func() provider.Deltas { return NewDeltas() },
		ReadsCumulative: true,
		VolatileIDKeys:  []string{"id", "sessionId", "session_id", "tool_id"},
		// gemini -p … --output-format stream-json.
		JSONOutputArgs: []string{"--output-format", "stream-json"},
		// ~/.gemini/tmp/<project>/chats/session-<time>-<id head>.jsonl, one
		// entry a line, the first the metadata with the whole sessionId
		// (the corpus's history/gemini/*/history.jsonl); no variable moves it.
		Sessions: provider.SessionStore{HomeDir: ".gemini", Path: "tmp", Prefix: "session-", Suffix: ".jsonl",
			Parent: "chats", IDField: "sessionId"},
	}
}

// shapeKeys names, per stream-json type, the string field that only
// Gemini CLI's line of that type carries.
var shapeKeys = map[string]string{"init": "session_id", "message": "role", "tool_use": "tool_name",
	"tool_result": "tool_id", "result": "status", "error": "severity"}

// detectLine tells a stream-json line: an ISO timestamp string plus
// init+session_id, message+role, tool_use+tool_name, tool_result+tool_id,
// result+status or error+severity.
func detectLine(line []byte) (string, bool) {
	line = bytes.TrimSpace(line)
	if len(line) == 0 || line[0] != '{' || !jsonpick.Valid(line) {
		return "", false
	}
	v := gjson.ParseBytes(line)
	typ := v.Get("type")
	if typ.Type != gjson.String || v.Get("timestamp").Type != gjson.String || v.Get("properties").IsObject() {
		return "", false
	}
	key := shapeKeys[typ.String()]
	if key != "" && v.Get(key).Type == gjson.String {
		return FormatStreamJSON, true
	}
	return "", false
}

// detectHistoryLine tells a line of a stored session
// (~/.gemini/tmp/<project>/chats/session-*.jsonl): the metadata line
// (projectHash), a {"$set":…} patch, or a message record {"id","type","content"}
// of type user, gemini, info, error or warning.
func detectHistoryLine(line []byte) bool {
	if !jsonpick.Valid(line) {
		return false
	}
	v := gjson.ParseBytes(line)
	if !v.IsObject() {
		return false
	}
	if v.Get("projectHash").Exists() || v.Get("$set").Exists() {
		return true
	}
	if v.Get("id").Exists() && v.Get("content").Exists() {
		switch v.Get("type").String() {
		case "user", "gemini", "info", "error", "warning":
			return true
		}
	}
	return false
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
