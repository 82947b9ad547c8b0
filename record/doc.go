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
// copy (to --passthrough, unchanged and at once) and queue; one pipeline
// goroutine does all the parsing and writing. The queue is bounded and
// never blocks a reader: what does not fit is dropped and recorded as a
// gap record saying how many bytes and lines, so a slow disk can slow
// neither the agent nor a pipeline built on --passthrough. Lines are
// unbounded in length (only the line being assembled is held); a last line
// without newline is recorded and flagged; after the child exits, a
// process it left behind holding the pipes is waited for only DrainTimeout.
// The capture file is flushed every few tens of milliseconds, so a kill -9
// of evcap loses at most that and tears at most the last line; on Linux the
// child is killed with evcap (Pdeathsig) rather than orphaned.
//
// Payloads are redacted before they are written (Options.Redactor), and
// the normalizer reads the redacted line, so normalizing a capture's
// native_in again gives back its normalized_out.
//
// The package does not know provider formats (the caller passes the
// normalizer table), does not parse flags and does not install signal
// handlers: cmd delivers the signals to forward on Options.Signals.
package record
