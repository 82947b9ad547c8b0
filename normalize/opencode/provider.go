package opencode

import (
	"bytes"
	"time"

	"github.com/evcap/evcap/event"
	"github.com/evcap/evcap/internal/jsonpick"
	"github.com/evcap/evcap/provider"
	"github.com/tidwall/gjson"
)

// Name is the provider's name in capture envelopes and --provider flags.
const Name = "opencode"

// The formats opencode prints.
const (
	FormatRunJSON  = "run-json"  // opencode run --format json
	FormatSSE      = "sse"       // the server's /event bus as raw SSE text
	FormatBusJSONL = "bus-jsonl" // the /event bus payloads, one per line
)

// Provider describes opencode to the rest of evcap.
func Provider() provider.Descriptor {
	return provider.Descriptor{
		Name:       Name,
		CLI:        "opencode",
		NPMPackage: "opencode-ai",
		System:     "opencode",
		Detect:     detectLine,
		Normalizer: func(o provider.Options) event.Normalizer {
			return NewWithOptions(Options{CumulativeDeltas: o.CumulativeDeltas})
		},
		History:            func() event.Normalizer { return NewHistory() },
		DetectHistory:      detectHistoryLine,
		HistoryTime:        historyTime,
		Deltas:             func() provider.Deltas { return NewDeltas() },
		ReadsCumulative:    true,
		VolatileIDKeys:     []string{"callID", "id", "messageID", "parentID", "partID", "requestID", "sessionID"},
		VolatileIDPrefixes: []string{"call_", "evt_", "msg_", "per_", "prt_", "que_", "ses_"},
		ProjectPaths:       []string{"properties.info.directory", "properties.info.path.cwd"},
		Server:             server(),
		// opencode run --format json (the server's /event bus needs no flag).
		JSONOutputArgs: []string{"run", "--format", "json"},
		// $XDG_DATA_HOME (~/.local/share)/opencode/opencode.db: one SQLite
		// database for every session (tables session, message, part; the
		// corpus's history/opencode/*/opencode.db).
		Sessions: provider.SessionStore{DirEnv: "XDG_DATA_HOME", HomeDir: ".local/share", Path: "opencode/opencode.db",
			Database: true, ProjectPaths: []string{"info.path.cwd"}},
	}
}

// detectLine tells an opencode line:
//
//	run-json   {"type","sessionID","part"|"error"}, or type done with a sessionID
//	bus-jsonl  {"type","properties":{…}}
//	sse        a bus payload behind "data:"
func detectLine(line []byte) (string, bool) {
	line = bytes.TrimSpace(line)
	if p, ok := bytes.CutPrefix(line, []byte("data:")); ok {
		if f, ok := judge(bytes.TrimSpace(p)); ok && f == FormatBusJSONL {
			return FormatSSE, true
		}
		return "", false
	}
	return judge(line)
}

func judge(line []byte) (string, bool) {
	if len(line) == 0 || line[0] != '{' || !jsonpick.Valid(line) {
		return "", false
	}
	v := gjson.ParseBytes(line)
	typ := v.Get("type")
	if typ.Type != gjson.String {
		return "", false
	}
	switch {
	case v.Get("properties").IsObject():
		return FormatBusJSONL, true
	case v.Get("sessionID").Type == gjson.String &&
		(v.Get("part").IsObject() || v.Get("error").IsObject() || typ.String() == "done"):
		return FormatRunJSON, true
	}
	return "", false
}

// detectHistoryLine tells a stored message, as evcap import builds it from
// opencode.db or the server's message list: {"info":{…,"role"},"parts":[…]}.
func detectHistoryLine(line []byte) bool {
	if !jsonpick.Valid(line) {
		return false
	}
	v := gjson.ParseBytes(line)
	return v.IsObject() && v.Get("info.role").Exists() && v.Get("parts").IsArray()
}

// historyTime is a stored message's creation time (info.time.created, in
// milliseconds since 1970).
func historyTime(line []byte) time.Time {
	if !jsonpick.Valid(line) {
		return time.Time{}
	}
	if ms := gjson.GetBytes(line, "info.time.created"); ms.Type == gjson.Number {
		return time.UnixMilli(ms.Int()).UTC()
	}
	return time.Time{}
}
