// Package source opens what an evcap command reads: a capture file, a
// fixture directory, a fixture.json, raw agent CLI output, or standard input
// ("-"), and tells which of them it is.
//
// Open opens a path exactly once and reads it front to back, so pipes and
// FIFOs work as well as files; nothing is read twice or copied to a
// temporary file. OpenContext is Open whose reads stop with a context, a
// read blocked on a quiet FIFO included. It sniffs the first line: an evcap record (a JSON object
// with schemaVersion and stage) makes a capture, a first line that is just
// "{" makes a fixture.json read from a stream, anything else is raw agent
// CLI output. A fixture is handed out as the capture records it holds, so a
// command that reads captures reads fixtures without knowing the difference.
//
// Spool is for a command that must read its input twice (bundle and
// promote sanitize a capture, and the sanitizer learns the project root
// first): it reads a FIFO, a pipe or standard input once into a temporary
// file the caller names, and hands a regular file back as it is.
//
// Native reads an opened input as the native lines a normalizer takes: raw
// output line by line, or a capture's native_in records, with the first
// lines read ahead so that Choose can settle the provider before the first
// one is normalized (evcap normalize and census read this way).
// Native.Normalize runs the caller's normalizer over those lines with
// reading, normalizing and emitting on separate goroutines; from a pipe
// or a terminal (Input.Live) each line's events are emitted before more
// input is waited for.
// RecordEvidence is the same verdict for a reader that holds a capture's
// records.
//
// Input.Events reads an opened input as the events an integration renders
// or accumulates (evcap render): a capture's recorded normalized_out
// events when it has them, else its native lines (or raw output's) through
// the provider's normalizer, each event with the moment it happened.
//
// Choose settles which provider's normalizer reads an input, from the
// provider the capture names and what normalize/detect sees in its first
// native lines.
//
// The package holds no normalizer of its own (Events takes the provider's
// from package providers), and does not render, replay or validate
// captures: it opens, sniffs and hands out bytes and events. A fixture.json is checked against the
// fixture schema when it is opened (package fixtures), because a fixture is
// read whole anyway.
package source
