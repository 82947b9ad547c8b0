// Package codex normalizes the output of OpenAI Codex's `codex exec --json`
// (the thread/turn/item protocol) into evcap's normalized events.
//
// It is a pure function of the bytes it is given: one native line at a
// time through Normalizer.Line, state kept between lines, Normalizer.End at
// the end of the stream. It does no I/O and reads no clock. NewConverter (an
// io.WriteCloser) and Normalize wrap it for streams of bytes. It knows
// nothing of capture files or envelopes, and it does not redact.
//
// Codex prints no text deltas: reasoning and agent messages arrive whole in
// item.completed, so there are no delta events. It prints no model, no
// version, no cost and no result line.
//
// # Mapping
//
//	native line                          normalized events
//	thread.started                       init completed (sessionId = thread_id)
//	turn.started                         status updated ("turn_started")
//	turn.completed                       usage updated (cumulative for the thread; input includes the cached
//	                                     input, output includes reasoning), result completed ("success")
//	turn.failed                          error failed (fatal, type "turn_failed"), result failed ("error")
//	error "Reconnecting... N/M (why)"    retry updated (attempt N, maxRetries M, status parsed from why)
//	error, any other message             error failed (not fatal, type "stream_error"); codex prints the
//	                                     final error once here and once more in turn.failed
//	item.*/agent_message                 text completed (partId = item id); started: text started
//	item.*/reasoning                     thinking completed; empty reasoning gives nothing
//	item.*/command_execution             tool completed "Bash" at the first sight of the item (summary: the
//	                                     command without the /bin/bash -lc wrapper), tool_result at
//	                                     item.completed (failed when exit code ≠ 0 or status failed/declined)
//	item.*/file_change                   tool completed "file_change" (summary: the paths), tool_result
//	                                     ("<kind> <path>" per change)
//	item.*/mcp_tool_call                 tool completed "mcp__<server>__<tool>" (no summary), tool_result
//	                                     (text content, or the error message)
//	item.*/web_search                    tool completed "web_search" (summary: the query), tool_result
//	item.*/todo_list                     status updated ("todo <done>/<all>")
//	item.*/error                         error failed (not fatal, type "item_error")
//	item.plan.delta, request_user_input  unknown updated (kept unknown: no normalized form yet)
//	{"id":…,"msg":{…}} (legacy protocol) unknown updated (nativeType "legacy/<msg.type>")
//	<other type or item type>            unknown updated
//	a line that is not a JSON object     unknown updated (nativeType "(invalid json)")
//	end of stream in an open turn        result failed, subtype "incomplete" (also when no turn ever ended)
//
// A tool call is reported once, as a tool event with phase completed, as
// soon as its arguments are known; item.updated lines of a tool add nothing.
//
// # Census
//
// Classify names each line's type path ("thread.started",
// "item.completed/command_execution"), says whether it is handled or
// unknown, and lists fields not seen before in codex-cli 0.171.0 or in
// codex-rs/exec/src/exec_events.rs: top-level fields, and item fields as
// "item.<name>".
package codex
