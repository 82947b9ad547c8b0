package history

import (
	"bytes"

	"github.com/evcap/evcap/providers"
)

// sqliteMagic opens every SQLite database file.
var sqliteMagic = []byte("SQLite format 3\x00")

// IsSQLite reports whether head (the first bytes of a file) is a SQLite
// database header.
func IsSQLite(head []byte) bool { return bytes.HasPrefix(head, sqliteMagic) }

// DetectProvider tells which CLI stored a JSONL session, from its first
// lines, by the shape only that CLI writes (each provider's descriptor
// holds its rule, Descriptor.DetectHistory; package providers applies
// them):
//
//	Codex        {"timestamp","type":"session_meta|response_item|event_msg|turn_context|…","payload":{…}}
//	Gemini CLI   {"sessionId","projectHash","startTime"}, {"$set":{…}}, or a message {"id","type":"user|gemini|…","content"}
//	Claude Code  {"type":"user|assistant|system|queue-operation|attachment|summary|last-prompt|…"} with sessionId, uuid or leafUuid
//	opencode     {"info":{"id","sessionID","role"},"parts":[…]}
//
// The first line exactly one provider claims decides; ok is false when no
// line does.
func DetectProvider(first [][]byte) (string, bool) {
	d, ok := providers.DetectHistory(first)
	return d.Name, ok
}
