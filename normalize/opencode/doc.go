// Package opencode turns the JSON that opencode prints into normalized
// events (package event). It reads both of opencode's machine outputs, line
// by line, and tells them apart per line:
//
//   - `opencode run --format json`: one {"type","timestamp","sessionID",...}
//     object per line, types step_start, step_finish, text, reasoning,
//     tool_use, error (and done in some versions);
//   - the server's `/event` bus: either raw SSE text ("data: {...}" lines
//     separated by blank lines; "event:", "id:", "retry:" and ":" comment
//     lines are skipped) or the same payloads one JSON object per line,
//     {"id","type","properties"}.
//
// # Mapping
//
// run --format json (parts are always whole, so there are no deltas):
//
//	step_start            ignored: the message id is on every part
//	text                  text completed (whole text)
//	reasoning             thinking completed (whole text)
//	tool_use              tool completed + tool_result completed/failed
//	step_finish           usage updated (per model call, not cumulative)
//	error                 error failed, fatal (name + data.message only:
//	                      responseHeaders/responseBody are never copied)
//	done                  status updated "idle", then the synthesized result
//
// the /event bus:
//
//	message.updated            no event; remembers which message ids are the user's
//	message.part.updated/text  text started (no time.end) / completed (time.end set);
//	                           parts of user messages are the prompt echo: dropped
//	.../reasoning              thinking started / completed, as text
//	.../tool                   pending → tool started, running → tool updated (only
//	                           when status or input changed), completed/error →
//	                           tool completed + tool_result completed/failed
//	.../step-start             ignored, as in run mode
//	.../step-finish            usage updated
//	message.part.delta         text or thinking delta, by the type the part id got in
//	                           message.part.updated; deltas of a part not yet seen
//	                           wait until it is (flushed as text at End)
//	session.status/busy        status updated "busy"
//	session.status/retry       retry updated (attempt, message)
//	session.status/idle        status updated "idle", then the synthesized result
//	session.error              error failed, fatal
//	permission.asked/updated   permission started
//	permission.v2.asked        permission started (tool = action, patterns = resources)
//	permission.replied, permission.v2.replied   permission completed
//	session.created            init completed (session id, opencode version); for a
//	                           child session (info.parentID set): agent started
//
// A subagent (the task tool) runs as a child session on the same bus. Its
// session.created is tied to the oldest task call of its parent session not
// tied yet (the task part's state.metadata.sessionId, which names the child
// later, confirms or corrects it), and every event of the child session
// carries that call as ParentToolCallID and the child as Agent (id = child
// session id, name = the task's subagent_type or the "(@name subagent)" of
// the child's title). The child's session.status idle gives an agent
// completed event, not the run's result; the child's text is never the
// result text, though its tokens, cost and steps count in the run's sums.
// `opencode run --format json` prints only the parent session.
//
// A provider behind opencode that resends the whole text so far in every
// message.part.delta (cumulative snapshots) is read with
// NewWithOptions(Options{CumulativeDeltas: true}): each delta event then
// carries only the new suffix, per part and field. It is opt-in, since a
// genuine piece may begin with the text before it.
//
// Bus events that describe the server or the session rather than the run
// are ignored with a reason (see Classify): server.connected,
// server.heartbeat, session.updated, session.idle (a deprecated duplicate
// of session.status idle), session.diff, session.deleted,
// session.compacted, message.removed, message.part.removed, file.edited,
// file.watcher.updated, plugin.added, catalog.updated, reference.updated,
// integration.updated, lsp.*, installation.*, and, from the SDK's event
// catalog (catalog/opencode.json), integration.connection.updated,
// models-dev.refreshed, mcp.tools.changed, project.updated,
// project.directories.updated, vcs.branch.updated, global.disposed,
// server.instance.disposed and tui.* (commands to the terminal UI). Part types without a mapping
// (file, agent, subtask, retry, snapshot, patch, compaction) and event
// types without one (todo.updated, question.*, pty.*, command.executed)
// are deliberately kept as unknown events: they carry information a
// reader may want, and none of them occurs in the corpus.
//
// # The synthesized result
//
// Neither output has a result line. A result is emitted at done or
// session.status idle (the turn is over) and, at End, when anything
// happened after the last result: subtype "error" (failed) after a fatal
// error, "success" when the last step_finish said reason "stop",
// "incomplete" (failed) otherwise. It carries the number of model calls
// (step_finish count) as NumTurns, their summed cost and the text of the
// last text part, and is preceded by a cumulative usage event with the
// summed tokens of the turn.
//
// A line that is not JSON becomes an unknown event with NativeType
// "(invalid json)"; it never stops the stream.
//
// The package does no I/O and reads no clock: bytes in, events out.
package opencode
