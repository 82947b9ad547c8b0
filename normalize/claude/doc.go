// Package claude normalizes the output of Claude Code's
// `claude -p --output-format stream-json --verbose` (with or without
// --include-partial-messages) into evcap's normalized events.
//
// It is a pure function of the bytes it is given: one native line at a
// time through Normalizer.Line, state kept between lines, Normalizer.End at
// the end of the stream. It does no I/O and reads no clock. NewConverter (an
// io.WriteCloser) and Normalize wrap it for streams of bytes. It knows
// nothing of capture files or envelopes, and it does not redact: tool
// inputs, outputs and texts are passed on as the CLI printed them.
//
// # Mapping
//
//	native line                                   normalized events
//	system/init                                   init completed (sessionId, model, version=claude_code_version)
//	system/api_retry                              retry updated (attempt, maxRetries, delayMs rounded, status=error_status, error)
//	system/status                                 status updated (status, nativeType)
//	system/thinking_tokens                        none: ignored (a running estimate; the thinking text and usage are normalized)
//	system/<other subtype>                        unknown updated (nativeType "system/<subtype>"), never an error
//	stream_event message_start                    usage updated (the message's input, cache and first output counts)
//	stream_event content_block_start text|thinking text|thinking started (messageId, partId = block index)
//	stream_event content_block_start tool_use     tool started (toolCallId, name)
//	stream_event text_delta|thinking_delta        text|thinking delta (the new piece only)
//	stream_event input_json_delta                 none until the block stops (accumulated)
//	stream_event signature_delta|citations_delta  none: ignored
//	stream_event content_block_stop               text|thinking completed (whole text) or tool completed (parsed input, summary)
//	stream_event message_delta                    usage updated (input from message_start, output from the delta)
//	stream_event message_stop|ping                none: ignored
//	stream_event error                            error failed (type, message; not fatal: the CLI retries)
//	assistant, message streamed before            none: its blocks came as stream events (no duplicates)
//	assistant, message not streamed               usage updated (first line of a message), then per block
//	                                              text|thinking completed or tool completed
//	assistant with model "<synthetic>"            error failed, fatal (type = the line's "error", message = its text)
//	user tool_result                              tool_result completed, or failed when is_error (output cut to 2 KiB)
//	user prompt text                              none: ignored
//	result/<any subtype>                          usage updated (cumulative run totals), error failed (fatal, only when
//	                                              is_error and no fatal error was reported yet), result completed|failed
//	<other type>                                  unknown updated (nativeType = type)
//	a line that is not a JSON object              unknown updated (nativeType "(invalid json)")
//	end of stream without result                  result failed, subtype "incomplete"; open blocks are completed first
//	rate_limit_event                              rate_limit updated (status, rateLimitType, resetsAt, utilization)
//	system/hook_started|hook_progress             hook started|updated (hook_id, hook_name, hook_event; output cut)
//	system/hook_response                          hook completed, or failed when outcome is not success (exit code)
//	system/task_started|task_progress             agent started|updated (task_id, subagent type, description)
//	system/task_updated|task_notification         agent updated, completed or failed by its status
//	system/permission_denied                      permission completed, reply "deny"
//	system/compact_boundary, session_state_changed, notification and the other session notices
//	                                              status updated (nativeType "system/<subtype>")
//	control_request can_use_tool                  permission started (request id, tool, safe summary, reason)
//	control_request hook_callback                 hook started (an SDK-side hook)
//	control_request <other subtype>               none: ignored (it steers the session)
//	control_response to a can_use_tool request    permission completed (reply = behavior, message)
//	control_response to anything else             none: ignored
//	tool_progress, tool_use_summary, keep_alive, prompt_suggestion   none: ignored
//
// # Subagents
//
// A Task (or Agent) tool call starts a subagent; every line of its work
// carries parent_tool_use_id. Each event from such a line gets that id as
// ParentToolCallID and the subagent's identity as Agent: its name from the
// tool call's subagent_type and its id from the system/task_* line that
// names the same tool call. The stream state of partial messages is kept
// per agent, so a subagent's stream events may interleave with the main
// agent's. A control_response is only written by the SDK, on the CLI's
// stdin; it is normalized when a caller feeds those lines too.
//
// Partial mode prints each block twice: as stream events, and as a full
// assistant line (before the block's content_block_stop). The assistant
// lines of a message whose message_start was seen give no text, thinking
// or tool events, so every word is reported exactly once; without stream
// events the assistant lines are the only source.
//
// # Cumulative snapshots
//
// Some Claude-compatible gateways and third-party models put the whole
// block text so far into every text_delta and thinking_delta instead of the
// next piece. NewWithOptions(Options{CumulativeDeltas: true}) reads such a
// stream: each delta event carries only the new suffix, and a snapshot that
// rewrites earlier text is passed on whole after a status event
// (StatusSnapshotRewritten). It is opt-in because a genuine piece can begin
// with the text before it (a "#" followed by "## Usage"), so snapshots cannot be
// detected safely. New leaves deltas as they are.
//
// # Tool summaries
//
// Each tool call gets one safe display line: Bash its command (whitespace
// collapsed, cut to 120 characters), Read/Write/Edit/MultiEdit the file path,
// NotebookEdit the notebook path, Grep/Glob the pattern, Task/Agent the
// description, WebFetch the URL, WebSearch the query. Every tool keeps its
// name verbatim (MCP tools mcp__server__tool too); any tool not listed here
// gets an empty summary, so that arguments of a tool nobody reviewed never
// reach a rendered log. Tool.Input always holds the raw arguments, which
// renderers must not print.
//
// # Census
//
// Classify names each line's type path ("system/init",
// "stream_event/content_block_delta/text_delta", "assistant/tool_use",
// "result/success"), says whether it is handled, ignored (with the reason)
// or unknown, and lists the top-level fields not seen before for that type
// in Claude Code 2.1.197 or in the Agent SDK's message types.
package claude
