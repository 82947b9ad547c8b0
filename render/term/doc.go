// Package term renders normalized events as the text a person watches in a
// terminal or in a CI log: what `evcap record` prints live and what
// `evcap render --format term` prints for a capture.
//
// A Renderer is fed one event.Event at a time and writes as it goes: thinking
// and assistant text stream as their deltas arrive, while tool calls, tool
// results, token usage, retries, errors and the final result each take one
// line. Blocks follow a small state machine: whenever the kind of block
// changes (thinking → text → tool line …) the open block is ended with a
// newline, so streamed text never runs into the next line, and styles are
// applied per line segment so no style leaks past a line end.
//
// Everything that decides how output looks is an Option: colour on or off,
// the wrap width, GitHub Actions annotations. The renderer reads no
// environment, no clock and no terminal state; ColorEnabled is the helper
// cmd uses to turn --color, NO_COLOR and "is stdout a terminal" into the
// Color option.
//
// Text from the model or a tool is untrusted. The renderer strips terminal
// control sequences from it (CSI, OSC and other string sequences, lone C0 and
// C1 controls; newline and tab stay) and, in GitHub Actions mode, breaks any
// "::" that would start a line so model text cannot issue a workflow command.
// Tool inputs (event.Tool.Input) are never printed, only the normalizer's
// safe summary.
//
// The package does not decide whether stdout is a terminal, does not read
// files or envelopes, and does not know any provider format.
package term
