// Package sanitize makes an evcap capture safe and deterministic to attach
// to a bug report or check in as a fixture, and scans files for anything
// that should not be there.
//
// Sanitize rewrites a capture record by record, streaming:
//
//   - Every payload (and the argv of capture.start) goes through the redact
//     engine; what it changes is appended to the record's redactions ledger.
//     So do the record's own string fields (sessionId, turnId, eventType,
//     model, agent, permissionMode, source, notes, and unknown fields kept
//     in Extra); their ledger entries point at the field behind "#"
//     ("#/agent", "#/futureField/token"), never confused with a pointer
//     into the payload. provider and stage are kept: they choose how a
//     record is read.
//   - A native or stderr line that was not valid UTF-8 (stored by record
//     as base64) is written back as a JSON string, each run of invalid
//     bytes replaced by U+FFFD (ledger rule RuleInvalidUTF8), and redacted
//     as text. A text line longer than MaxString is cut to a head and a
//     tail as redact cuts a long JSON string.
//   - Streamed deltas are redacted per block (see below), so a secret split
//     across deltas loses every piece in every delta, and the normalized
//     deltas and legacy markers made from the same text are redacted alike.
//   - The timestamp field becomes an offset from the first record
//     ("+1.250s"), or "" with DropTimes; times inside payloads (RFC 3339
//     strings, Unix milliseconds under time keys) are moved so the capture
//     starts at Epoch, keeping their format.
//   - captureId becomes FixedCaptureID; cwdHash and projectHash are dropped.
//   - Volatile ids (Claude session_id, uuid, message, tool-use and request
//     ids; opencode ses_/msg_/prt_/call_/evt_ ids; Codex thread_id and
//     item_N; Gemini session_id and tool_id) are learned from the native
//     and meta payloads in which they appear under id keys, and replaced by
//     pseudonyms wherever they appear as a whole token afterwards, in every
//     stage and in the sessionId field: the same id gets the same pseudonym
//     everywhere. Pseudonyms look like "session-0001" or
//     "toolu_evcap_0003" (IsPseudonym) and are never replaced again.
//   - Machine paths: the home, project and temp directories come from
//     Options, and the project root also from the capture itself
//     (capture.start cwd, Claude system/init cwd, opencode session
//     directory); nothing is guessed.
//   - With PrivateText, free text (text and thinking, streamed and whole,
//     prompts, tool outputs) becomes "x" per rune, keeping whitespace,
//     newlines and chunk boundaries.
//
// Sanitizing is byte-deterministic, and idempotent: the output sanitizes to
// itself. Everything not named above is kept byte for byte (payloads are
// spliced, never re-encoded), so the output still validates and still
// normalizes to the same events, apart from the values replaced.
//
// # Blocks and memory
//
// A delta is held back only while its tail could still be the start of a
// secret (see redact.Stream), or until its block ends, as the provider
// descriptor's Deltas tracker says (Claude content_block_stop or
// message_stop, a Gemini line that is not an assistant delta, an opencode
// part whose time.end is set or an idle session, the whole agent_message,
// agent_reasoning or agent_reasoning_raw_content line after a Codex legacy
// protocol's delta lines), or a completed normalized block, or a legacy
// message end. Stderr and non-JSON stdout lines form text blocks of their
// own, so a private key printed line by line is held until its END line and
// then replaced in every line. Records after a held one wait with it, so
// output order is input order. A block's stream looks at what it holds
// once per 4 KiB of deltas rather than after every delta (redact.Stream.
// Batch: the output is the same, and most of the work per short delta is
// saved); once 64 KiB of records wait behind held deltas it looks at once.
// Memory is bounded by the open blocks' streams
// plus the records waiting, which Options.MaxHeld caps: past it, the block
// holding the oldest record is released in parts (Report.EarlyFlushes)
// without a leak: the held tail that could start a secret is replaced, and
// so is what continues it (Report.PartialRedactions).
//
// # Project root
//
// The project root a capture names (capture.start cwd, Claude system/init
// cwd, opencode session directory) stands for the whole capture when the
// input is a file: records before the one that names it are held, not yet
// processed, until it is read, so the input is read once. In practice it
// is among the first records; when MaxHeld bytes go by without it (Codex
// and Gemini streams name none), the file is searched for it from the
// start with a byte search that parses only lines holding a key a
// declaration needs, and then sanitized from the start. From a pipe, which
// cannot be read ahead, the root applies from the record that names it on.
//
// # One pass per record
//
// Each record is read once (envelope.Reader), its payload redacted in one
// walk (redact), its delta fed to its block, and when it is released, one
// more walk (internal/jsonwalk) applies the delta's redacted chunk,
// pseudonyms, times and private text before it is written; strings that
// none of these can change are judged on their bytes and not copied.
//
// Reading, redacting and finishing overlap (pipeline.go): one goroutine
// reads records and tracks deltas, one per core redacts payloads (the
// rules' part, which depends on nothing but the record), and the caller's
// goroutine does what has state (blocks' streams, pseudonyms, times) and
// writes, in input order, so the output is what one goroutine would
// write. The records between reading and writing are bounded in bytes.
//
// NewLineRedactor gives the same block-aware redaction to a live stream of
// native lines (what evcap record reads from an agent): push lines as they
// come, take the lines it releases, Flush at the end. With LineOptions.Batch
// its streams batch too, and the caller calls Release whenever it has no
// more lines at hand, so that lines wait for a batch only while more are
// already there.
//
// # The gate
//
// The check that nothing is left is not here: package scan is the gate for
// CI (evcap scan), with rules and a view of the input of its own, so that it
// does not share the redactor's blind spots.
//
// # What it does not do
//
// It does not look up the machine's paths (callers pass them), does not
// normalize or validate (the output is for evcap validate and replay), and
// does not find secrets the redact rules do not know. A path written
// without its leading slash (opencode's session "path" field) is not a
// machine path to it.
package sanitize
