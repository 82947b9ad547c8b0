// Package record is what `evcap record` runs: it starts an agent CLI (or
// reads a piped stream, or attaches to an SSE event stream) and writes a
// capture while the agent works.
//
// Every stdout line becomes a native_in record byte for byte (non-JSON
// lines as eventType non_json, invalid UTF-8 as base64); it is fed to the
// provider's normalizer, whose events become normalized_out records naming
// that line's sequence number as their cause, are turned into legacy
// markers (legacy_out) and are rendered live. stderr lines are passed on
// and recorded as native_in records of eventType stderr. The capture opens
// with a capture.start record (evcap version, provider, argv without its
// secrets, CLI name and version, OS) and always ends with capture.end (exit
// code or signal, duration, counts, cleanEnd, notes).
//
// Dependability comes first. The pipes are read by goroutines that only
// copy (to --passthrough, unchanged and at once) and queue. Behind the
// queue, one goroutine cuts lines, detects the provider and redacts, and
// hands its results in order, through a bounded hand-off, to a second
// that writes the records (through capture.Capturer, the one capture
// writer), normalizes and renders; the two overlap, so a fast agent is
// recorded at the pace of the slower of them. The queue is bounded: when
// it is full a reader waits while the pipeline works (the backpressure
// reaches the agent), however long its own work takes (redacting a line of
// many MiB on a loaded machine), and once the pipeline has been waiting
// on the outside world for StallTimeout (a write of the capture file, the
// live renderer), what does not fit is dropped and recorded as a gap
// record saying how many bytes and lines, so a stuck disk can hold up
// neither the agent nor a pipeline built on --passthrough for long. A
// little output wakes the pipeline within 10 ms rather than at once, so a
// slow agent costs one wake-up per few lines; --passthrough and the
// timestamps are not delayed by that. Lines are
// unbounded in length (only the line being assembled is held); a last line
// without newline is recorded and flagged; after the child exits, a
// process it left behind holding the pipes is waited for only DrainTimeout.
// The capture file is flushed every few tens of milliseconds, so a kill -9
// of evcap loses at most that (and the lines held for redaction, below)
// and tears at most the last line; on Linux the
// child is killed with evcap (Pdeathsig) rather than orphaned.
//
// Payloads are redacted before they are written (Options.Redactor). stdout
// lines go through a sanitize.LineRedactor: streamed deltas (Claude
// partial messages, Gemini message deltas, opencode message.part.delta) are
// redacted block by block, so a secret or a project path split across
// deltas is replaced in every delta it touches. When output comes faster
// than it is redacted (several whole lines per wake-up), a helper goroutine
// runs the rules over the lines ahead of the one being pushed
// (LineRedactor.Prefetch), so redaction uses a second core; what is
// released, and in which order, does not change. Likewise, while more
// input is waiting, a block's stream looks at its deltas once per 4 KiB
// instead of after each one, and whenever the queue runs dry the pipeline
// releases what that held back (LineOptions.Batch, LineRedactor.Release),
// so a child that writes a line at a time waits for no batch. The normalizer, the legacy
// markers and the live rendering read exactly the lines as recorded, so
// normalizing a capture's native_in again gives back its normalized_out.
// Only events that hold what a normalizer assembled from a tool call's
// streamed input are redacted a second time, as are their legacy markers
// (if that finds something, capture.end says so). The price is a delay: a delta line,
// and the lines after it, are held while the end of its block's text could
// still be the start of a secret (a key's prefix such as "sk-ant-", a
// machine path, a value after "password=" still too short: see
// redact.Stream), until more text or the block's end settles it, and
// while a batch fills as above; the live rendering lags by that text.
// --passthrough is not delayed, it is the raw output. At most
// Options.MaxHeld (4 MiB) of lines are held. A normal end, the child's
// exit after a forwarded signal, and a gap in the stream release the held
// lines first; a kill -9 of evcap loses them (at most MaxHeld bytes, in
// practice the undecided tail of each open block and the lines behind
// them), on top of the writer's flush interval. Options.Lookahead is how
// much released text a block's stream keeps as context for what follows.
// stderr lines are redacted each on its own; they wait behind held stdout
// lines, so sequence numbers follow the order of arrival across streams.
//
// Every record's timestamp is when evcap read the bytes it stands for
// (normalized and legacy records: their native line's), from one clock
// anchored at the capture's start (its wall time plus the monotonic time
// since), whatever the redaction held back: play --speed 1 reproduces the
// agent's own timing, not evcap's.
//
// When the child's stdin is not a terminal (Options.RecordStdin), evcap
// sits between the integration and the agent: every byte is passed on at
// once and every line recorded as a native_out record (stream-json input:
// user messages, control_response, interrupts), redacted line by line.
// A control_response (the integration's answer to a permission request)
// is also fed to the normalizer, in sequence order with the stdout lines,
// so the permission's reply is a normalized event; normalizing a capture
// again must therefore read native_out control_response records too.
//
// The package does not know provider formats (the caller passes the
// normalizer table), does not parse flags and does not install signal
// handlers: cmd delivers the signals to forward on Options.Signals.
package record
