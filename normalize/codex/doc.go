// Package codex normalizes the JSON lines of OpenAI Codex's `codex exec`
// into evcap's normalized events, in each of the three protocols codex has
// printed, told apart line by line (see formatOf):
//
//   - the thread protocol of `codex exec --json` since 0.44:
//     thread.started, turn.*, item.* with item.type;
//   - the item_type variant of `--experimental-json` (0.42–0.43):
//     session.created, item.* with item.item_type (agent messages called
//     assistant_message), no turn events;
//   - the legacy protocol of `--json` before 0.44: a configuration summary
//     line, a prompt line, then {"id":"0","msg":{"type":…}} events (the
//     EventMsg enum of codex-rs/protocol), also found in `codex proto` and
//     MCP `codex/event` logs.
//
// It is a pure function of the bytes it is given: one native line at a
// time through Normalizer.Line, state kept between lines, Normalizer.End at
// the end of the stream. It does no I/O and reads no clock. NewConverter (an
// io.WriteCloser) and Normalize wrap it for streams of bytes. It knows
// nothing of capture files or envelopes, and it does not redact.
//
// codex exec prints no model (except in the legacy configuration summary),
// no version and no cost. The item protocols print no text deltas; the
// legacy one can (agent_message_delta, agent_reasoning_delta), though exec
// itself drops them.
//
// # Mapping: thread and item_type protocols
//
//	native line                          normalized events
//	thread.started, session.created      init completed (sessionId = thread_id / session_id)
//	turn.started                         status updated ("turn_started")
//	turn.completed                       usage updated (cumulative for the thread; input includes the cached
//	                                     input, output includes reasoning), result completed ("success",
//	                                     text = the turn's agent messages marked phase "final_answer")
//	turn.failed                          error failed (fatal, type "turn_failed"), result failed ("error")
//	error, a retry notice                retry updated (attempt N, maxRetries M, status and delay parsed):
//	                                     "Reconnecting... N/M (why)" or "stream error: why; retrying N/M in 197ms…"
//	error, any other message             thread protocol: error failed (not fatal, type "stream_error"); codex
//	                                     prints the final error once here and once more in turn.failed.
//	                                     item_type variant: error failed (fatal, type "error"), and a failed
//	                                     result at the end of the stream, as it has no turn events
//	item.*/agent_message                 text completed (partId = item id, messagePhase = item.phase when
//	(assistant_message)                  "commentary" or "final_answer"); started: text started
//	item.*/reasoning                     thinking completed; empty reasoning gives nothing
//	item.*/plan                          text completed (nativeType "item.completed/plan")
//	item.*/command_execution             tool completed "Bash" at the first sight of the item (summary: the
//	                                     command without the /bin/bash -lc wrapper), tool_result at
//	                                     item.completed (failed when exit code ≠ 0 or status failed/declined)
//	item.*/file_change                   tool completed "file_change" (summary: the paths), tool_result
//	                                     ("<kind> <path>" per change)
//	item.*/mcp_tool_call                 tool completed "mcp__<server>__<tool>" (no summary), tool_result
//	                                     (text content, or the error message)
//	item.*/collab_tool_call              tool completed named after the collab tool (spawn_agent, send_input,
//	                                     wait, close_agent; summary: the prompt), agent events for each change
//	                                     of a receiver thread's state (agent.id = thread id, parentToolCallId =
//	                                     the spawn_agent call), tool_result at item.completed; calls made from
//	                                     a spawned thread carry its parentToolCallId and agent
//	item.*/web_search                    tool completed "web_search" (summary: the query), tool_result
//	item.*/todo_list                     status updated ("todo <done>/<all>")
//	item.*/error                         error failed (not fatal, type "item_error")
//	item.plan.delta, request_user_input  nothing (ignored; see Classify)
//	<other type or item type>            unknown updated
//	a line that is not a JSON object     unknown updated (nativeType "(invalid json)")
//	end of stream in an open turn        result failed, subtype "incomplete" (also when no turn ever ended;
//	                                     thread protocol only)
//
// A tool call is reported once, as a tool event with phase completed, as
// soon as its arguments are known; item.updated lines of a tool add nothing.
//
// # Mapping: legacy protocol
//
//	native line                          normalized events
//	configuration summary                init completed (model)
//	prompt, user_message                 nothing
//	session_configured                   init completed (sessionId, model)
//	task_started                         status updated ("task_started")
//	task_complete                        result completed ("success", text = last_agent_message), or result
//	                                     failed ("error") when the task reported a fatal error
//	turn_aborted                         result failed ("aborted", text = the reason)
//	agent_message(_delta)                text started/delta/completed (partId "agent_message_N"; phase kept)
//	agent_reasoning(_delta),             thinking started/delta/completed (partId "agent_reasoning_N",
//	agent_reasoning_raw_content(_delta)  "agent_reasoning_raw_N")
//	exec_command_begin / _end            tool completed "Bash" (toolCallId = call_id) / tool_result
//	patch_apply_begin / _end             tool completed "file_change" / tool_result
//	mcp_tool_call_begin / _end           tool completed "mcp__<server>__<tool>" / tool_result (Ok content or Err)
//	web_search_end, view_image_tool_call tool completed and tool_result
//	exec_approval_request,               permission started
//	apply_patch_approval_request
//	token_count                          usage updated (cumulative total_token_usage; codex 0.2x printed the
//	                                     last call's usage flat: not cumulative), repeats dropped; rate_limit
//	                                     updated per changed primary/secondary window
//	error                                error failed (fatal); the failed result follows at task_complete or
//	                                     the end of the stream
//	stream_error, background_event       retry updated when it is a retry notice; else error failed (not
//	                                     fatal) / status updated
//	warning, deprecation_notice          error failed (not fatal)
//	plan_update                          status updated ("plan <done>/<all>")
//	context_compacted, undo_*, *_review_mode  status updated
//	output deltas, turn_diff, list responses, …  nothing (ignored with a reason; see legacyIgnored)
//
// codex exec prints no line at the end of a successful run in the legacy
// and item_type protocols (it consumes task_complete), so their streams end
// without a result unless a fatal error was reported; a result is never
// made up for them.
//
// # Census
//
// Classify names each line's type path ("thread.started",
// "item.completed/command_execution", "legacy/exec_command_begin"), says
// whether it is handled, ignored (with the reason) or unknown, and lists
// fields not seen before: top-level fields, item fields as "item.<name>"
// and legacy event fields as "msg.<name>". The known fields come from
// codex-cli 0.171.0, the recordings of 0.20–0.45 in
// testdata/corpus-extra/codex, codex-rs/exec/src/exec_events.rs and
// codex-rs/protocol/src/protocol.rs. catalog_test.go checks every type of
// the pinned catalogs in testdata/catalog against Classify.
package codex
