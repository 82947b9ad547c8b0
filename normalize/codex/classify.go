package codex

import (
	"github.com/evcap/evcap/internal/jsonpick"
	"slices"
	"strings"

	"github.com/evcap/evcap/event"
	"github.com/evcap/evcap/internal/census"
	"github.com/tidwall/gjson"
)

// typeField is known on every object: it is what nativeType reads.
var typeField = []string{"type"}

// formatOf tells which protocol one line is in. Legacy lines are
// {"id","msg":{…}} events, plus the two lines codex exec printed before
// them: the configuration summary ({"model":…,"sandbox":…,…}, no type) and
// the prompt ({"prompt":…}). Item-type lines are session.created and items
// whose type is in item_type. Everything else is the thread protocol.
func formatOf(v gjson.Result) format {
	f, items := readLine(v)
	return formatOfLine(v, &f, items, hasItemType(f[lItem]))
}

// formatOfLine is formatOf for the line v whose top-level fields readLine
// gave; itemType says whether its first item has an item_type
// (hasItemType).
func formatOfLine(v gjson.Result, f *lineFields, items int, itemType bool) format {
	switch {
	case f[lMsg].IsObject() && f[lID].Exists():
		return formatLegacy
	case !f[lType].Exists() && isConfigSummary(v):
		return formatLegacy
	case !f[lType].Exists() && f[lPrompt].Type == gjson.String && len(v.Map()) == 1:
		return formatLegacy
	case f[lType].String() == "session.created" || itemType:
		return formatItemType
	case items > 1 && v.Get("item.item_type").Exists():
		// The path goes on to a later item member when the first has
		// no item_type.
		return formatItemType
	}
	return formatThread
}

// hasItemType is it.Get("item_type").Exists() for an item from a valid
// line (an array has no such member), without parsing the item's values:
// every line of the thread protocol asks it of an item that may hold a
// large aggregated_output.
func hasItemType(it gjson.Result) bool {
	if !it.IsObject() {
		return false
	}
	_, ok := jsonpick.RawMember(it.Raw, "item_type")
	return ok
}

// isConfigSummary tells the configuration summary line codex exec --json
// printed first before 0.44 (keys as in its human-readable header).
func isConfigSummary(v gjson.Result) bool {
	return v.Get("model").Type == gjson.String && (v.Get("sandbox").Exists() || v.Get("approval").Exists()) &&
		v.Get("workdir").Exists()
}

// nativeType names a line's type path: the event type, plus the item type
// for item events ("item.completed/command_execution", or
// "item.completed/assistant_message" in the item_type variant). Legacy
// lines are "legacy/<msg.type>", "legacy/config_summary" and
// "legacy/prompt".
func nativeType(v gjson.Result) string {
	typ := v.Get("type").String()
	switch {
	case strings.HasPrefix(typ, "item.") && v.Get("item").Exists():
		it := v.Get("item")
		if t := it.Get("type"); t.Exists() {
			return typ + "/" + t.String()
		}
		return typ + "/" + it.Get("item_type").String()
	case typ == "" && v.Get("msg").IsObject() && v.Get("id").Exists():
		return "legacy/" + v.Get("msg.type").String()
	case typ == "" && isConfigSummary(v):
		return "legacy/config_summary"
	case typ == "" && formatOf(v) == formatLegacy:
		return "legacy/prompt"
	case typ == "":
		return census.NoType
	}
	return typ
}

// handledTypes lists the native types Line maps to events.
var handledTypes = map[string]bool{
	"thread.started": true, "turn.started": true, "turn.completed": true, "turn.failed": true, "error": true,
	"session.created": true,
}

// handledItems lists the item types Line maps, whatever the item phase,
// under the names of both item protocols.
var handledItems = []string{"agent_message", "assistant_message", "reasoning", "plan", "command_execution",
	"file_change", "mcp_tool_call", "collab_tool_call", "web_search", "todo_list", "error"}

// ignoredTypes lists thread-protocol types Line drops on purpose, and why.
var ignoredTypes = map[string]string{
	"item.plan.delta":    "plan-mode text as it streams; the whole plan follows as item.completed/plan",
	"request_user_input": "a question to the user; exec runs unattended and evcap has no normalized form for questions",
}

// legacyHandled lists the legacy msg types legacyLine maps to events.
var legacyHandled = []string{
	"session_configured", "task_started", "task_complete", "turn_aborted",
	"agent_message", "agent_message_delta", "agent_reasoning", "agent_reasoning_delta",
	"agent_reasoning_raw_content", "agent_reasoning_raw_content_delta",
	"exec_command_begin", "exec_command_end", "patch_apply_begin", "patch_apply_end",
	"mcp_tool_call_begin", "mcp_tool_call_end", "web_search_begin", "web_search_end", "view_image_tool_call",
	"exec_approval_request", "apply_patch_approval_request", "token_count",
	"error", "stream_error", "background_event", "warning", "deprecation_notice",
	"plan_update", "context_compacted", "undo_started", "undo_completed", "entered_review_mode", "exited_review_mode",
}

// legacyIgnored lists the legacy msg types legacyLine drops on purpose,
// and why.
var legacyIgnored = map[string]string{
	"user_message":                  "the user's own input, echoed",
	"agent_reasoning_section_break": "a boundary between reasoning summary sections; it carries no text",
	"exec_command_output_delta":     "command output as it streams; exec_command_end carries all of it",
	"terminal_interaction":          "input written to a running command; its output comes with exec_command_end",
	"turn_diff":                     "the turn's accumulated diff; the patch events already report each change",
	"raw_response_item":             "the model's raw response items, which the other events already report",
	"item_started":                  "the same content as the legacy message events codex derives from it",
	"item_completed":                "the same content as the legacy message events codex derives from it",
	"agent_message_content_delta":   "duplicate of agent_message_delta (codex derives one from the other)",
	"reasoning_content_delta":       "duplicate of agent_reasoning_delta (codex derives one from the other)",
	"reasoning_raw_content_delta":   "duplicate of agent_reasoning_raw_content_delta",
	"mcp_startup_update":            "MCP server start-up progress, not agent work",
	"mcp_startup_complete":          "MCP server start-up summary, not agent work",
	"mcp_list_tools_response":       "answer to a client's tool-list request",
	"list_custom_prompts_response":  "answer to a client's prompt-list request",
	"list_skills_response":          "answer to a client's skill-list request",
	"get_history_entry_response":    "answer to a client's history request",
	"conversation_path":             "answer to a client's conversation-path request",
	"skills_update_available":       "a hint to clients to reload skills",
	"shutdown_complete":             "the process is exiting; the run's outcome is reported by task_complete or error",
	"elicitation_request":           "an MCP server asking the user a question; exec runs unattended",
	"ext":                           "extension events wrapped by the stored source; their payloads are not defined there",
}

// legacyLineReasons are the dispositions of the two non-event legacy lines.
var legacyLineReasons = map[string]string{
	"legacy/config_summary": "", // handled: gives the init event with the model
	"legacy/prompt":         "the user's prompt, echoed",
}

// knownFields lists, per native type, the top-level fields (and, for item
// events, the item's fields as "item.<name>") seen in the corpus (codex-cli
// 0.171.0) or declared in codex-rs/exec/src/exec_events.rs.
var knownFields = map[string][]string{
	"thread.started":     {"thread_id"},
	"session.created":    {"session_id"},
	"turn.started":       nil,
	"turn.completed":     {"usage"},
	"turn.failed":        {"error"},
	"error":              {"message"},
	"item.plan.delta":    {"item_id", "delta"},
	"request_user_input": {"id", "call_id", "questions"},
}

// knownItemFields lists the fields of each item type.
var knownItemFields = map[string][]string{
	"agent_message":     {"text", "phase"},
	"assistant_message": {"text"},
	"reasoning":         {"text"},
	"plan":              {"text"},
	"command_execution": {"command", "aggregated_output", "exit_code", "status"},
	"file_change":       {"changes", "status"},
	"mcp_tool_call":     {"server", "tool", "arguments", "result", "error", "status"},
	"collab_tool_call":  {"tool", "sender_thread_id", "receiver_thread_ids", "prompt", "agents_states", "status"},
	"web_search":        {"query", "action"},
	"todo_list":         {"items"},
	"error":             {"message"},
}

// knownLegacyFields lists the msg fields of legacy events, from
// codex-rs/protocol/src/protocol.rs and the recordings of codex 0.20–0.42;
// types without an entry get no field check.
var knownLegacyFields = map[string][]string{
	"session_configured": {"session_id", "model", "history_log_id", "history_entry_count", "initial_messages",
		"rollout_path", "reasoning_effort", "model_provider_id", "approval_policy", "sandbox_policy", "cwd"},
	"task_started":                  {"model_context_window"},
	"task_complete":                 {"last_agent_message"},
	"turn_aborted":                  {"reason"},
	"token_count":                   {"info", "rate_limits", "input_tokens", "cached_input_tokens", "output_tokens", "reasoning_output_tokens", "total_tokens"},
	"agent_message":                 {"message", "phase"},
	"agent_message_delta":           {"delta"},
	"agent_reasoning":               {"text"},
	"agent_reasoning_delta":         {"delta"},
	"agent_reasoning_raw_content":   {"text"},
	"agent_reasoning_section_break": {"item_id", "summary_index"},
	"exec_command_begin":            {"call_id", "command", "cwd", "parsed_cmd"},
	"exec_command_output_delta":     {"call_id", "stream", "chunk"},
	"exec_command_end":              {"call_id", "stdout", "stderr", "aggregated_output", "exit_code", "duration", "formatted_output"},
	"patch_apply_begin":             {"call_id", "auto_approved", "changes"},
	"patch_apply_end":               {"call_id", "stdout", "stderr", "success"},
	"mcp_tool_call_begin":           {"call_id", "invocation"},
	"mcp_tool_call_end":             {"call_id", "invocation", "duration", "result"},
	"web_search_begin":              {"call_id"},
	"web_search_end":                {"call_id", "query"},
	"error":                         {"message", "codex_error_info"},
	"stream_error":                  {"message", "codex_error_info"},
	"background_event":              {"message"},
	"turn_diff":                     {"unified_diff"},
}

// Classify reports how Line treats line, for the drift census. It reads
// no state and changes none.
func (n *Normalizer) Classify(line []byte) event.Classification {
	if len(strings.TrimSpace(string(line))) == 0 {
		return event.Classification{NativeType: "(blank)", Disposition: event.DispositionIgnored, Reason: "blank line"}
	}
	if !gjson.ValidBytes(line) {
		return event.Classification{NativeType: census.Invalid, Disposition: event.DispositionUnknown}
	}
	v := gjson.ParseBytes(line)
	if !v.IsObject() {
		return event.Classification{NativeType: census.Invalid, Disposition: event.DispositionUnknown}
	}
	nt := nativeType(v)
	c := event.Classification{NativeType: nt, Disposition: event.DispositionUnknown}
	if formatOf(v) == formatLegacy {
		return classifyLegacy(v, c)
	}
	typ := v.Get("type").String()
	it := v.Get("item")
	rawItemType := it.Get("type").String()
	if !it.Get("type").Exists() {
		rawItemType = it.Get("item_type").String()
	}
	switch {
	case handledTypes[nt]:
		c.Disposition = event.DispositionHandled
		c.UnknownFields = census.Extra(v, "", typeField, knownFields[nt])
	case ignoredTypes[nt] != "":
		c.Disposition, c.Reason = event.DispositionIgnored, ignoredTypes[nt]
		c.UnknownFields = census.Extra(v, "", typeField, knownFields[nt])
	case strings.HasPrefix(typ, "item.") && slices.Contains(handledItems, rawItemType):
		c.Disposition = event.DispositionHandled
		c.UnknownFields = census.Extra(v, "", typeField, []string{"item"})
		c.UnknownFields = append(c.UnknownFields, census.Extra(it, "item.", typeField,
			[]string{"id", "item_type"}, knownItemFields[rawItemType])...)
	}
	return c
}

// classifyLegacy judges a line of the legacy protocol.
func classifyLegacy(v gjson.Result, c event.Classification) event.Classification {
	if reason, ok := legacyLineReasons[c.NativeType]; ok {
		if reason == "" {
			c.Disposition = event.DispositionHandled
		} else {
			c.Disposition, c.Reason = event.DispositionIgnored, reason
		}
		return c
	}
	typ := v.Get("msg.type").String()
	switch {
	case slices.Contains(legacyHandled, typ):
		c.Disposition = event.DispositionHandled
	case legacyIgnored[typ] != "":
		c.Disposition, c.Reason = event.DispositionIgnored, legacyIgnored[typ]
	default:
		return c
	}
	c.UnknownFields = census.Extra(v, "", []string{"id", "msg"})
	if known, ok := knownLegacyFields[typ]; ok {
		c.UnknownFields = append(c.UnknownFields, census.Extra(v.Get("msg"), "msg.", typeField, known)...)
	}
	return c
}
