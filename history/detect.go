package history

import (
	"bytes"

	"github.com/tidwall/gjson"
)

// sqliteMagic opens every SQLite database file.
var sqliteMagic = []byte("SQLite format 3\x00")

// IsSQLite reports whether head (the first bytes of a file) is a SQLite
// database header.
func IsSQLite(head []byte) bool { return bytes.HasPrefix(head, sqliteMagic) }

// DetectProvider tells which CLI stored a JSONL session, from its first
// lines, by the shape only that CLI writes:
//
//	Codex        {"timestamp","type":"session_meta|response_item|event_msg|turn_context|…","payload":{…}}
//	Gemini CLI   {"sessionId","projectHash","startTime"}, {"$set":{…}}, or a message {"id","type":"user|gemini|…","content"}
//	Claude Code  {"type":"user|assistant|system|queue-operation|attachment|summary|last-prompt|…"} with sessionId, uuid or leafUuid
//	opencode     {"info":{"id","sessionID","role"},"parts":[…]}
//
// ok is false when no line fits.
func DetectProvider(first [][]byte) (string, bool) {
	for _, l := range first {
		if !gjson.ValidBytes(l) {
			continue
		}
		v := gjson.ParseBytes(l)
		if !v.IsObject() {
			continue
		}
		switch {
		case v.Get("payload").Exists() && v.Get("type").Exists() && v.Get("timestamp").Exists():
			return "codex", true
		case v.Get("info.role").Exists() && v.Get("parts").IsArray():
			return "opencode", true
		case v.Get("projectHash").Exists() || v.Get("$set").Exists():
			return "gemini", true
		case v.Get("type").Exists() && (v.Get("sessionId").Exists() || v.Get("uuid").Exists() || v.Get("leafUuid").Exists()):
			return "claude", true
		case v.Get("id").Exists() && v.Get("content").Exists():
			switch v.Get("type").String() {
			case "user", "gemini", "info", "error", "warning":
				return "gemini", true
			}
		}
	}
	return "", false
}
