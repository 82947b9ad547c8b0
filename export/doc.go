// Package export turns evcap captures into OpenTelemetry traces that follow
// the GenAI semantic conventions, so that runs recorded on many machines
// can be searched in one tracing backend (Jaeger, or any OTLP endpoint)
// and each bad run leads back to its capture.
//
// One capture becomes one trace:
//
//	invoke_agent <cli>            the whole run: provider, CLI and version, session,
//	│                             exit status, duration, the capture's id and sequences
//	├── chat <model>              one model turn: model, input/output/cache tokens
//	├── execute_tool <name>       one tool call: name, call id, status, error
//	│   └── execute_tool <name>   a subagent's tool call, under the call that started it
//	└── …
//
// Retries, errors, rate limits and permission prompts are span events.
// Span and trace ids are derived from the capture id and the sequence
// numbers that opened each span, so exporting a capture twice sends the
// same ids and a backend that keys spans by id keeps one copy.
//
// A Builder folds a capture's records into finished spans one record at a
// time (the same code serves a whole file and a recording in progress); an
// Emitter hands finished spans to an OpenTelemetry SDK span processor.
// Text content (prompts, answers, tool arguments and output) is left out
// unless asked for, and even then only what the capture holds, which is
// redacted text.
//
// The package does not record, normalize or sanitize: it reads the
// normalized_out records a capture already has.
package export
