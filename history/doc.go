// Package history turns the sessions that agent CLIs store for themselves
// (to resume or reopen them later) into evcap captures, and compares a
// restored session with the live capture of the same run.
//
// Where the pinned CLIs keep their sessions (each provider's descriptor
// says it, provider.SessionStore, and Locate searches there), and how this
// package reads them:
//
//	Claude Code  $CLAUDE_CONFIG_DIR (~/.claude)/projects/<cwd slug>/<session id>.jsonl   one entry a line
//	Codex        $CODEX_HOME (~/.codex)/sessions/YYYY/MM/DD/rollout-*-<id>.jsonl       one entry a line
//	Gemini CLI   ~/.gemini/tmp/<project>/chats/session-*.jsonl                         one entry a line
//	opencode     $XDG_DATA_HOME (~/.local/share)/opencode/opencode.db                  SQLite: one entry a message
//	             with its parts, read from the message and part tables (or GET
//	             /session/{id}/message of a running server), shaped like the server's answer
//
// Import writes one native_in record per stored entry, in stored order,
// stamped with the entry's own timestamp and with Source "history", each
// followed by the normalized_out records the provider's history normalizer
// (normalize/<provider>.NewHistory) derives from it, between capture.start
// and capture.end records. Every payload goes through the redactor first,
// so the capture holds nothing the redaction rules would remove from a live
// one; the normalized events are derived from the redacted entries.
//
// The package never writes to the CLI's files: JSONL files are opened for
// reading, the SQLite database read-only (query_only, no checkpoint, so a
// running opencode keeps its write-ahead log to itself).
//
// Compare folds two event streams into chat groups (render/groups) and
// reports the first difference between a live run and its restored
// session: the same texts, the same tool calls with the same status and
// result, the same final answer.
//
// It does not decide what is secret (package redact does), know provider
// formats beyond finding entries and their timestamps (the normalizers do),
// or run the CLIs.
package history
