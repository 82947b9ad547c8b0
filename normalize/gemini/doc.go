// Package gemini turns Gemini CLI `--output-format stream-json` output into
// normalized events (package event), one line at a time.
//
// Every line is {"type","timestamp",...}. Mapping:
//
//	init                        init completed (session id, model)
//	message role user           ignored: the echo of the prompt
//	message role assistant      text started at the first delta of a run, text
//	  delta:true                delta per line; the run ends (text completed with
//	                            the whole reassembled text) at the next non-message
//	                            line, at result, or at End
//	message role assistant      text completed with the content (a whole message;
//	  without delta             an open run of deltas is closed first)
//	tool_use                    tool completed (name, one-line summary, input)
//	tool_result                 tool_result completed (status success) or failed
//	result status success       usage updated (stats, session totals: cumulative)
//	                            + result completed
//	result status error         usage updated + error failed (fatal) + result failed
//	error severity warning      error failed, not fatal
//	error severity error        error failed, fatal
//
// Gemini CLI prints assistant text only as deltas, never assembled, so the
// completed text event is the only place the whole text exists. Thoughts
// are not printed in stream-json, so there are no thinking events.
//
// Gateways that resend the whole text so far in every delta (cumulative
// snapshots) are read with NewWithOptions(Options{CumulativeDeltas: true}):
// each delta event then carries only the new suffix. It is opt-in, since a
// genuine piece may begin with the text before it.
//
// At End, an open text run is completed and, when no result line came, a
// result with subtype "incomplete" (failed) is reported. A line that is not
// JSON becomes an unknown event with NativeType "(invalid json)"; a line of
// a type this package does not know becomes an unknown event too.
//
// The package does no I/O and reads no clock: bytes in, events out.
package gemini
