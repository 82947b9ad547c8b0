package codex

import (
	"bytes"
	"strings"
	"time"

	"github.com/evcap/evcap/event"
	"github.com/evcap/evcap/internal/jsonpick"
	"github.com/evcap/evcap/provider"
	"github.com/tidwall/gjson"
)

// Name is the provider's name in capture envelopes and --provider flags.
const Name = "codex"

// The formats codex exec prints.
const (
	// FormatExecJSON is codex exec --json of 0.44 and later:
	// thread/turn/item events.
	FormatExecJSON = "exec-json"
	// FormatExecJSONItemType is codex exec --experimental-json of
	// 0.42–0.43: session.created, items typed by item_type.
	FormatExecJSONItemType = "exec-json-item-type"
	// FormatExecJSONLegacy is codex exec --json before 0.44 (and codex
	// proto): {"id","msg":{"type":…}} events.
	FormatExecJSONLegacy = "exec-json-legacy"
)

// Provider describes the Codex CLI to the rest of evcap.
func Provider() provider.Descriptor {
	return provider.Descriptor{
		Name:           Name,
		CLI:            "codex",
		NPMPackage:     "@openai/codex",
		System:         "openai",
		Detect:         detectLine,
		Normalizer:     func(provider.Options) event.Normalizer { return New() },
		History:        func() event.Normalizer { return NewHistory() },
		DetectHistory:  detectHistoryLine,
		HistoryTime:    func(line []byte) time.Time { return rfc3339(line, "timestamp") },
		Deltas:         func() provider.Deltas { return NewDeltas() },
		VolatileIDKeys: []string{"id", "session_id", "thread_id"},
		// codex exec --json (the thread protocol; the legacy protocol
		// before 0.44).
		JSONOutputArgs: []string{"exec", "--json"},
		// $CODEX_HOME (~/.codex)/sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl,
		// one entry a line, the first a session_meta whose payload.id is
		// the session id (the corpus's history/codex/*/history.jsonl).
		Sessions: provider.SessionStore{DirEnv: "CODEX_HOME", HomeDir: ".codex", Path: "sessions",
			Prefix: "rollout-", Suffix: ".jsonl", NameID: provider.NameContainsID, IDField: "payload.id",
			ProjectPaths: []string{"payload.cwd"}},
	}
}

var threadTypes = map[string]bool{"thread.started": true, "turn.started": true, "turn.completed": true,
	"turn.failed": true, "item.started": true, "item.updated": true, "item.completed": true}

// detectLine tells a line of codex exec's output, in any of its formats:
//
//	exec-json            type thread.*|turn.*|item.*, or a bare {"type":"error","message"}
//	exec-json-item-type  {"type":"session.created","session_id"}, or an item with item_type
//	exec-json-legacy     {"id","msg":{"type":…}}, or the configuration summary
//	                     {"model","sandbox"|"approval","workdir",…}
func detectLine(line []byte) (string, bool) {
	line = bytes.TrimSpace(line)
	if len(line) == 0 || line[0] != '{' || !jsonpick.Valid(line) {
		return "", false
	}
	v := gjson.ParseBytes(line)
	typ := v.Get("type")
	str := func(k string) bool { return v.Get(k).Type == gjson.String }
	if typ.Type != gjson.String {
		switch {
		case v.Get("msg.type").Type == gjson.String && str("id"),
			!typ.Exists() && str("model") && (v.Get("sandbox").Exists() || v.Get("approval").Exists()) && v.Get("workdir").Exists():
			return FormatExecJSONLegacy, true
		}
		return "", false
	}
	t := typ.String()
	switch {
	case v.Get("properties").IsObject():
		return "", false // an opencode bus payload may share a type name
	case t == "session.created" && str("session_id") && len(v.Map()) == 2,
		strings.HasPrefix(t, "item.") && v.Get("item.item_type").Type == gjson.String:
		return FormatExecJSONItemType, true
	case threadTypes[t], t == "error" && str("message") && len(v.Map()) == 2:
		return FormatExecJSON, true
	}
	return "", false
}

// detectHistoryLine tells a line of a stored rollout
// (~/.codex/sessions/…/rollout-*.jsonl): {"timestamp","type","payload"}.
func detectHistoryLine(line []byte) bool {
	if !jsonpick.Valid(line) {
		return false
	}
	v := gjson.ParseBytes(line)
	return v.IsObject() && v.Get("payload").Exists() && v.Get("type").Exists() && v.Get("timestamp").Exists()
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
