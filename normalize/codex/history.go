package codex

import (
	"encoding/json"
	"strings"

	"github.com/evcap/evcap/event"
	"github.com/evcap/evcap/internal/census"
	"github.com/evcap/evcap/internal/textcut"
	"github.com/tidwall/gjson"
)

// HistoryNormalizer turns the lines of a stored Codex session (a rollout
// file, $CODEX_HOME/sessions/YYYY/MM/DD/rollout-*.jsonl) into the same
// normalized events as the exec --json normalizer. A rollout keeps two
// accounts of each turn: the model's wire transcript (response_item
// lines) and the items the UI showed (event_msg item_completed lines).
// The UI items are the ones a restored session renders, and they carry
// what exec --json prints (a command's aggregated output, its exit code),
// so they come first; a response_item adds only what no item reported
// (an older rollout, a call cut off before its item completed). Every
// thing is reported once, keyed by its id (message id, reasoning id, call
// id), whichever line brings it first.
//
//	stored line                          normalized events
//	session_meta                         init completed (sessionId=id, version=cli_version)
//	event_msg/task_started               status updated "turn_started"
//	event_msg/item_completed AgentMessage  text completed (partId = item id)
//	event_msg/item_completed Reasoning   thinking completed (the summary texts)
//	event_msg/item_completed CommandExecution|FileChange|McpToolCall|WebSearch
//	                                     tool completed (as exec --json) and tool_result completed|failed
//	response_item message (assistant)    text completed, unless its id was reported
//	response_item reasoning              thinking completed, unless its id was reported
//	response_item function_call|custom_tool_call  tool completed, unless its call id was reported
//	response_item *_call_output          tool_result, unless its call has a result
//	event_msg/token_count                usage updated (total_token_usage, cumulative)
//	event_msg/error                      error failed (fatal; the turn's result is then failed)
//	event_msg/stream_error               retry updated ("Reconnecting... n/m") or error failed (not fatal)
//	event_msg/task_complete              result completed (text = last_agent_message), or error failed (fatal)
//	                                     and result failed when it carries the error that ended the turn
//	event_msg/turn_aborted               result failed, subtype "aborted"
//	end with a turn still open           result failed, subtype "incomplete"
//	turn_context, world_state, token_usage_record, other event_msg
//	                                     none: ignored (see historyIgnored)
type HistoryNormalizer struct {
	sawLine  bool
	turnOpen bool
	turnErr  bool
	terminal bool
	// seen holds the ids of texts, thinking blocks and tool calls already
	// reported; results holds the call ids whose result was reported.
	seen    map[string]bool
	results map[string]bool
}

// NewHistory returns a HistoryNormalizer at the start of a rollout.
func NewHistory() *HistoryNormalizer {
	return &HistoryNormalizer{seen: map[string]bool{}, results: map[string]bool{}}
}

// historyIgnored lists the rollout line types the history normalizer drops
// on purpose, and why.
var historyIgnored = map[string]string{
	"turn_context":                         "the turn's settings (model, sandbox, approval policy), not agent output",
	"world_state":                          "the environment snapshot given to the model",
	"token_usage_record":                   "per-response usage; event_msg/token_count carries the running totals",
	"event_msg/thread_settings_applied":    "settings bookkeeping",
	"event_msg/user_message":               "the prompt; evcap normalizes the agent's output",
	"event_msg/agent_message":              "repeats the assistant message of a response_item",
	"event_msg/agent_reasoning":            "repeats the reasoning of a response_item",
	"event_msg/item_started":               "the item is reported whole when it completes",
	"response_item/message/user":           "the prompt and environment context; evcap normalizes the agent's output",
	"response_item/message/developer":      "system instructions given to the model",
	"response_item/message/system":         "system instructions given to the model",
	"event_msg/item_completed/UserMessage": "the prompt; evcap normalizes the agent's output",
}

// historyType names a rollout line's type path: type, then the payload's
// type, then the role or item type where those decide the mapping.
func historyType(v gjson.Result) string {
	typ := v.Get("type").String()
	if typ == "" {
		return census.NoType
	}
	p := v.Get("payload")
	switch typ {
	case "event_msg":
		s := typ + "/" + p.Get("type").String()
		if p.Get("type").String() == "item_completed" {
			s += "/" + p.Get("item.type").String()
		}
		return s
	case "response_item":
		s := typ + "/" + p.Get("type").String()
		if p.Get("type").String() == "message" {
			s += "/" + p.Get("role").String()
		}
		return s
	}
	return typ
}

// historyHandled lists the type paths Line maps to events.
var historyHandled = map[string]bool{
	"session_meta": true, "compacted": true,
	"event_msg/task_started": true, "event_msg/task_complete": true, "event_msg/turn_aborted": true,
	"event_msg/token_count": true, "event_msg/error": true, "event_msg/stream_error": true,
	"event_msg/item_completed/AgentMessage": true, "event_msg/item_completed/Reasoning": true,
	"event_msg/item_completed/CommandExecution": true, "event_msg/item_completed/FileChange": true,
	"event_msg/item_completed/McpToolCall": true, "event_msg/item_completed/WebSearch": true,
	"response_item/message/assistant": true, "response_item/reasoning": true,
	"response_item/function_call": true, "response_item/custom_tool_call": true,
	"response_item/function_call_output": true, "response_item/custom_tool_call_output": true,
	"response_item/local_shell_call": true, "response_item/web_search_call": true,
}

// Line normalizes one rollout line. ref goes into the Cause of every event
// derived from it.
func (n *HistoryNormalizer) Line(ref int64, line []byte) []event.Event {
	if len(strings.TrimSpace(string(line))) == 0 {
		return nil
	}
	n.sawLine = true
	if !gjson.ValidBytes(line) {
		return []event.Event{unknown(ref, census.Invalid)}
	}
	v := gjson.ParseBytes(line)
	if !v.IsObject() {
		return []event.Event{unknown(ref, census.Invalid)}
	}
	cause := []int64{ref}
	p := v.Get("payload")
	nt := historyType(v)
	switch nt {
	case "session_meta":
		return []event.Event{{Kind: event.KindInit, Phase: event.PhaseCompleted, SessionID: p.Get("id").String(),
			Version: p.Get("cli_version").String(), Cause: cause}}
	case "compacted":
		return []event.Event{{Kind: event.KindStatus, Phase: event.PhaseUpdated, Status: "compacted",
			NativeType: nt, Cause: cause}}
	case "event_msg/task_started":
		n.turnOpen, n.turnErr, n.terminal = true, false, false
		return []event.Event{{Kind: event.KindStatus, Phase: event.PhaseUpdated, Status: "turn_started",
			NativeType: nt, Cause: cause}}
	case "event_msg/task_complete":
		n.turnOpen, n.terminal = false, true
		r := &event.Result{Subtype: "success", Text: p.Get("last_agent_message").String(),
			DurationMs: p.Get("duration_ms").Int()}
		ph := event.PhaseCompleted
		var out []event.Event
		if e := p.Get("error"); e.Exists() && e.Type != gjson.Null {
			// A turn that failed (a 401, a dead connection) completes
			// with the error that ended it.
			msg := e.Get("message").String()
			if !n.turnErr {
				out = append(out, event.Event{Kind: event.KindError, Phase: event.PhaseFailed, Cause: cause,
					Error: &event.Error{Type: "turn_failed", Message: msg, Fatal: true}})
			}
			n.turnErr = true
			if r.Text == "" {
				r.Text = msg
			}
		}
		if n.turnErr {
			r.Subtype, r.IsError, ph = "error", true, event.PhaseFailed
		}
		return append(out, event.Event{Kind: event.KindResult, Phase: ph, Result: r, Cause: cause})
	case "event_msg/turn_aborted":
		n.turnOpen, n.terminal = false, true
		return []event.Event{{Kind: event.KindResult, Phase: event.PhaseFailed, Cause: cause,
			Result: &event.Result{Subtype: "aborted", IsError: true, Text: p.Get("reason").String()}}}
	case "event_msg/token_count":
		u := p.Get("info.total_token_usage")
		if !u.Exists() {
			return nil
		}
		return []event.Event{{Kind: event.KindUsage, Phase: event.PhaseUpdated, Cause: cause, Usage: &event.Usage{
			InputTokens:      u.Get("input_tokens").Int(),
			OutputTokens:     u.Get("output_tokens").Int(),
			CacheReadTokens:  u.Get("cached_input_tokens").Int(),
			CacheWriteTokens: u.Get("cache_write_input_tokens").Int(),
			ReasoningTokens:  u.Get("reasoning_output_tokens").Int(),
			Cumulative:       true,
		}}}
	case "event_msg/error":
		n.turnErr = true
		return []event.Event{{Kind: event.KindError, Phase: event.PhaseFailed, Cause: cause,
			Error: &event.Error{Type: "turn_failed", Message: p.Get("message").String(), Fatal: true}}}
	case "event_msg/stream_error":
		msg := p.Get("message").String()
		if r, ok := parseRetry(msg); ok {
			return []event.Event{{Kind: event.KindRetry, Phase: event.PhaseUpdated, Retry: &r, Cause: cause}}
		}
		return []event.Event{{Kind: event.KindError, Phase: event.PhaseFailed, Cause: cause,
			Error: &event.Error{Type: "stream_error", Message: msg}}}
	}
	if strings.HasPrefix(nt, "event_msg/item_completed/") {
		return n.uiItem(nt, p.Get("item"), cause)
	}
	if strings.HasPrefix(nt, "response_item/") {
		if _, ok := historyIgnored[nt]; ok {
			return nil
		}
		return n.responseItem(nt, p, cause)
	}
	if _, ok := historyIgnored[nt]; ok {
		return nil
	}
	if strings.HasPrefix(nt, "event_msg/") && !strings.HasPrefix(nt, "event_msg/item_completed") {
		return nil // see Classify: bookkeeping the UI does not show
	}
	return []event.Event{unknown(ref, nt)}
}

// once reports whether id is new, and marks it seen.
func (n *HistoryNormalizer) once(id string) bool {
	if id == "" {
		return true
	}
	if n.seen[id] {
		return false
	}
	n.seen[id] = true
	return true
}

func (n *HistoryNormalizer) uiItem(nt string, it gjson.Result, cause []int64) []event.Event {
	id := it.Get("id").String()
	switch it.Get("type").String() {
	case "AgentMessage":
		var parts []string
		for _, c := range it.Get("content").Array() {
			parts = append(parts, c.Get("text").String())
		}
		return n.block(event.KindText, id, strings.Join(parts, ""), cause)
	case "Reasoning":
		var parts []string
		for _, s := range it.Get("summary_text").Array() {
			parts = append(parts, s.String())
		}
		return n.block(event.KindThinking, id, strings.Join(parts, "\n\n"), cause)
	case "UserMessage":
		return nil
	case "CommandExecution", "FileChange", "McpToolCall", "WebSearch":
		var out []event.Event
		if n.once(id) {
			t := uiTool(it)
			out = append(out, event.Event{Kind: event.KindTool, Phase: event.PhaseCompleted, ToolCallID: id,
				Tool: &t, Cause: cause})
		}
		if res, ok := uiResult(it); ok && !n.results[id] {
			n.results[id] = true
			out = append(out, resultEvent(id, res, cause))
		}
		return out
	}
	return []event.Event{unknown(cause[0], nt)}
}

func (n *HistoryNormalizer) block(kind event.Kind, id, text string, cause []int64) []event.Event {
	if text == "" || !n.once(id) {
		return nil
	}
	return []event.Event{{Kind: kind, Phase: event.PhaseCompleted, PartID: id, Text: text, Cause: cause}}
}

// toolOutcome is a finished tool call's output and verdict.
type toolOutcome struct {
	output string
	isErr  bool
}

func resultEvent(id string, r toolOutcome, cause []int64) event.Event {
	ph := event.PhaseCompleted
	if r.isErr {
		ph = event.PhaseFailed
	}
	return event.Event{Kind: event.KindToolResult, Phase: ph, ToolCallID: id, Cause: cause,
		ToolResult: &event.ToolResult{IsError: r.isErr, Output: textcut.Output(r.output), OutputBytes: len(r.output)}}
}

// shellCommand joins a command given as an argument list the way codex
// exec --json prints it: words with spaces in single quotes.
func shellCommand(c gjson.Result) string {
	if c.Type == gjson.String {
		return c.String()
	}
	var words []string
	for _, w := range c.Array() {
		s := w.String()
		if s == "" || strings.ContainsAny(s, " \t\n'\"$`\\|&;<>()*?[]#~") {
			s = "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
		}
		words = append(words, s)
	}
	return strings.Join(words, " ")
}

// uiTool describes a UI item as a call, like toolOf does for exec --json
// items.
func uiTool(it gjson.Result) event.Tool {
	switch it.Get("type").String() {
	case "CommandExecution":
		cmd := shellCommand(it.Get("command"))
		in, _ := json.Marshal(map[string]string{"command": cmd})
		return event.Tool{Name: "Bash", Summary: textcut.Summary(unwrapCommand(cmd)), Input: in}
	case "FileChange":
		var paths []string
		for _, c := range it.Get("changes").Array() {
			paths = append(paths, c.Get("path").String())
		}
		return event.Tool{Name: "file_change", Summary: textcut.Summary(strings.Join(paths, ", ")),
			Input: json.RawMessage(it.Get("changes").Raw)}
	case "McpToolCall":
		t := event.Tool{Name: "mcp__" + it.Get("server").String() + "__" + it.Get("tool").String()}
		if a := it.Get("arguments"); a.Exists() {
			t.Input = json.RawMessage(a.Raw)
		}
		return t
	case "WebSearch":
		q := it.Get("query").String()
		in, _ := json.Marshal(map[string]string{"query": q})
		return event.Tool{Name: "web_search", Summary: textcut.Summary(q), Input: in}
	}
	return event.Tool{Name: "tool"}
}

// uiResult reads a completed UI item's outcome; ok is false while the
// item has none (still in progress).
func uiResult(it gjson.Result) (toolOutcome, bool) {
	status := it.Get("status").String()
	if status == "in_progress" || status == "inProgress" {
		return toolOutcome{}, false
	}
	r := toolOutcome{isErr: status == "failed" || status == "declined"}
	switch it.Get("type").String() {
	case "CommandExecution":
		r.output = it.Get("aggregated_output").String()
		if c := it.Get("exit_code"); c.Type == gjson.Number && c.Int() != 0 {
			r.isErr = true
			if r.output == "" {
				r.output = "exit code " + c.Raw
			}
		}
	case "FileChange":
		var lines []string
		for _, c := range it.Get("changes").Array() {
			kind := c.Get("kind.type").String()
			if kind == "" {
				kind = c.Get("kind").String()
			}
			lines = append(lines, kind+" "+c.Get("path").String())
		}
		r.output = strings.Join(lines, "\n")
	case "McpToolCall":
		if e := it.Get("error.message"); e.Exists() {
			r.isErr, r.output = true, e.String()
		} else {
			var parts []string
			for _, c := range it.Get("result.content").Array() {
				if c.Get("type").String() == "text" {
					parts = append(parts, c.Get("text").String())
				}
			}
			r.output = strings.Join(parts, "\n")
		}
	}
	return r, true
}

func (n *HistoryNormalizer) responseItem(nt string, p gjson.Result, cause []int64) []event.Event {
	switch nt {
	case "response_item/message/assistant":
		var parts []string
		for _, c := range p.Get("content").Array() {
			if c.Get("type").String() == "output_text" {
				parts = append(parts, c.Get("text").String())
			}
		}
		return n.block(event.KindText, p.Get("id").String(), strings.Join(parts, ""), cause)
	case "response_item/reasoning":
		var parts []string
		for _, s := range p.Get("summary").Array() {
			parts = append(parts, s.Get("text").String())
		}
		return n.block(event.KindThinking, p.Get("id").String(), strings.Join(parts, "\n\n"), cause)
	case "response_item/function_call", "response_item/custom_tool_call", "response_item/local_shell_call":
		id := p.Get("call_id").String()
		if !n.once(id) {
			return nil
		}
		t := callTool(p)
		return []event.Event{{Kind: event.KindTool, Phase: event.PhaseCompleted, ToolCallID: id, Tool: &t, Cause: cause}}
	case "response_item/web_search_call":
		id := p.Get("id").String()
		if !n.once(id) {
			return nil
		}
		q := p.Get("action.query").String()
		in, _ := json.Marshal(map[string]string{"query": q})
		return []event.Event{{Kind: event.KindTool, Phase: event.PhaseCompleted, ToolCallID: id, Cause: cause,
			Tool: &event.Tool{Name: "web_search", Summary: textcut.Summary(q), Input: in}}}
	case "response_item/function_call_output", "response_item/custom_tool_call_output":
		id := p.Get("call_id").String()
		if n.results[id] {
			return nil
		}
		n.results[id] = true
		out := p.Get("output")
		text := out.String()
		isErr := false
		if out.IsObject() { // {"content": "...", "success": false}
			text = out.Get("content").String()
			isErr = out.Get("success").Type == gjson.False
		}
		return []event.Event{resultEvent(id, toolOutcome{output: text, isErr: isErr}, cause)}
	}
	return []event.Event{unknown(cause[0], nt)}
}

// callTool describes a model's function call. Shell calls (exec_command,
// shell, local_shell_call) show the command, like exec --json's
// command_execution items; apply_patch is a file change; other tools,
// whose arguments we have not reviewed, keep only their name.
func callTool(p gjson.Result) event.Tool {
	name := p.Get("name").String()
	args := gjson.Parse(p.Get("arguments").String())
	if p.Get("type").String() == "local_shell_call" {
		args = p.Get("action")
		name = "shell"
	}
	switch name {
	case "exec_command", "shell", "container.exec":
		var cmd string
		switch {
		case args.Get("cmd").Exists():
			cmd = shellCommand(args.Get("cmd"))
		default:
			cmd = shellCommand(args.Get("command"))
		}
		in, _ := json.Marshal(map[string]string{"command": cmd})
		return event.Tool{Name: "Bash", Summary: textcut.Summary(unwrapCommand(cmd)), Input: in}
	case "apply_patch":
		return event.Tool{Name: "file_change"}
	}
	if strings.HasPrefix(name, "mcp__") {
		return event.Tool{Name: name}
	}
	return event.Tool{Name: "tool"}
}

// End reports a turn that started but neither completed nor was aborted:
// the stored session of a run that was cut off.
func (n *HistoryNormalizer) End() []event.Event {
	if n.turnOpen || (n.sawLine && !n.terminal) {
		n.turnOpen, n.terminal = false, true
		return []event.Event{{Kind: event.KindResult, Phase: event.PhaseFailed,
			Result: &event.Result{Subtype: "incomplete", IsError: true}}}
	}
	return nil
}

// Classify reports how Line treats a rollout line.
func (n *HistoryNormalizer) Classify(line []byte) event.Classification {
	if !gjson.ValidBytes(line) {
		return event.Classification{NativeType: census.Invalid, Disposition: event.DispositionUnknown}
	}
	nt := historyType(gjson.ParseBytes(line))
	if historyHandled[nt] {
		return event.Classification{NativeType: nt, Disposition: event.DispositionHandled}
	}
	if r, ok := historyIgnored[nt]; ok {
		return event.Classification{NativeType: nt, Disposition: event.DispositionIgnored, Reason: r}
	}
	if strings.HasPrefix(nt, "event_msg/") && !strings.HasPrefix(nt, "event_msg/item_completed") {
		return event.Classification{NativeType: nt, Disposition: event.DispositionIgnored,
			Reason: "session bookkeeping the UI does not render"}
	}
	return event.Classification{NativeType: nt, Disposition: event.DispositionUnknown}
}
