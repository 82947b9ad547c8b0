package claude

import (
	"slices"
	"strings"

	"github.com/evcap/evcap/event"
	"github.com/evcap/evcap/internal/census"
	"github.com/tidwall/gjson"
)

// nativeType names a line's type path: type, then subtype (system,
// result), the stream event type and its delta or block type, or the
// content block types of an assistant or user message.
func nativeType(v gjson.Result) string {
	typ := v.Get("type").String()
	switch typ {
	case "system", "result":
		return typ + "/" + v.Get("subtype").String()
	case "control_request":
		return typ + "/" + v.Get("request.subtype").String()
	case "control_response":
		if v.Get("response.response.behavior").Exists() {
			return typ + "/permission"
		}
		return typ + "/" + v.Get("response.subtype").String()
	case "stream_event":
		e := v.Get("event")
		s := typ + "/" + e.Get("type").String()
		if d := e.Get("delta.type"); d.Exists() {
			s += "/" + d.String()
		} else if b := e.Get("content_block.type"); b.Exists() {
			s += "/" + b.String()
		}
		return s
	case "assistant", "user":
		c := v.Get("message.content")
		if c.Type == gjson.String {
			return typ + "/string"
		}
		var kinds []string
		for _, b := range c.Array() {
			if k := b.Get("type").String(); !slices.Contains(kinds, k) {
				kinds = append(kinds, k)
			}
		}
		if len(kinds) == 0 {
			return typ + "/empty"
		}
		return typ + "/" + strings.Join(kinds, "+")
	}
	if typ == "" {
		return census.NoType
	}
	return typ
}

// ignoredReason lists the native types Line drops on purpose, and why.
var ignoredReason = map[string]string{
	"system/thinking_tokens":                           "running estimate of thinking tokens; the thinking text itself is normalized and real counts come with usage",
	"stream_event/message_stop":                        "carries no data: blocks are closed by content_block_stop and usage by message_delta",
	"stream_event/ping":                                "keep-alive",
	"stream_event/content_block_delta/signature_delta": "opaque signature of a thinking block, meaningless to a reader",
	"stream_event/content_block_delta/citations_delta": "citations are not part of the normalized model",
	"tool_progress":                                    "a heartbeat with the seconds a tool has been running; the tool's start and result are normalized",
	"tool_use_summary":                                 "a model-written recap of earlier tool calls, which are normalized themselves",
	"keep_alive":                                       "keep-alive",
	"prompt_suggestion":                                "a suggested next prompt for an interactive user, not part of the run",
	"control_response/success":                         "the CLI's reply to an SDK control request (initialize, interrupt, set_model…); no agent output",
	"control_response/error":                           "the CLI's reply to an SDK control request (initialize, interrupt, set_model…); no agent output",
	"user/text":                                        "the prompt echoed back; evcap normalizes the agent's output",
	"user/string":                                      "the prompt echoed back; evcap normalizes the agent's output",
	"user/image":                                       "the prompt echoed back; evcap normalizes the agent's output",
}

// controlIgnored is why control requests other than can_use_tool and
// hook_callback are dropped: they steer the session (initialize,
// interrupt, set_model, mcp_message…) and say nothing about the run.
const controlIgnored = "a control request that steers the session between SDK and CLI; no agent output"

// handledTypes lists the native types Line maps to events. Other types of
// the families that have a subtype or block type (system, stream_event,
// assistant, result) become unknown events.
var handledTypes = map[string]bool{
	"system/init": true, "system/api_retry": true, "system/status": true,
	"stream_event/message_start": true, "stream_event/message_delta": true,
	"stream_event/content_block_start/text": true, "stream_event/content_block_start/thinking": true,
	"stream_event/content_block_start/tool_use": true, "stream_event/content_block_start/server_tool_use": true,
	"stream_event/content_block_delta/text_delta": true, "stream_event/content_block_delta/thinking_delta": true,
	"stream_event/content_block_delta/input_json_delta": true,
	"stream_event/content_block_stop":                   true, "stream_event/error": true,
	"user/tool_result":    true,
	"rate_limit_event":    true,
	"system/hook_started": true, "system/hook_progress": true, "system/hook_response": true,
	"system/task_started": true, "system/task_progress": true, "system/task_updated": true,
	"system/task_notification": true, "system/permission_denied": true,
	"system/compact_boundary": true, "system/session_state_changed": true, "system/notification": true,
	"system/informational": true, "system/local_command_output": true,
	"system/model_refusal_fallback": true, "system/model_refusal_no_fallback": true,
	"system/plugin_install": true, "system/memory_recall": true, "system/mirror_error": true,
	"system/elicitation_complete": true, "system/files_persisted": true, "system/commands_changed": true,
	"system/worker_shutting_down": true, "system/background_tasks_changed": true,
	"system/control_request_progress": true,
	"control_request/can_use_tool":    true, "control_request/hook_callback": true,
	"control_response/permission": true,
}

// handledBlocks are the assistant content block types Line maps.
var handledBlocks = []string{"text", "thinking", "tool_use", "server_tool_use"}

// commonFields appear on (almost) every line.
var commonFields = []string{"type", "subtype", "uuid", "session_id"}

// knownFields lists, per type or type/subtype, the top-level fields seen in
// the corpus (Claude Code 2.1.197) or documented by the Agent SDK types
// (formats.md §1.1). Anything else is reported by Classify as unknown, so
// that the census shows what a new CLI version added.
var knownFields = map[string][]string{
	"system/init": {"cwd", "tools", "mcp_servers", "model", "permissionMode", "slash_commands",
		"apiKeySource", "claude_code_version", "output_style", "agents", "skills", "plugins",
		"analytics_disabled", "product_feedback_disabled", "memory_paths", "fast_mode_state",
		"betas", "effort", "capabilities"},
	"system/api_retry":       {"attempt", "max_retries", "retry_delay_ms", "error_status", "error", "no_response"},
	"system/status":          {"status", "permissionMode", "compact_result", "compact_error"},
	"system/thinking_tokens": {"estimated_tokens", "estimated_tokens_delta"},
	"stream_event":           {"event", "parent_tool_use_id", "ttft_ms", "subagent_type", "task_description"},
	"assistant": {"message", "parent_tool_use_id", "error", "request_id", "timestamp",
		"subagent_type", "task_description", "tool_use_meta", "supersedes"},
	"user": {"message", "parent_tool_use_id", "tool_use_result", "timestamp", "origin",
		"isSynthetic", "isReplay", "subagent_type", "task_description", "priority", "shouldQuery"},
	"rate_limit_event":                 {"rate_limit_info"},
	"system/hook_started":              {"hook_id", "hook_name", "hook_event"},
	"system/hook_progress":             {"hook_id", "hook_name", "hook_event", "stdout", "stderr", "output"},
	"system/hook_response":             {"hook_id", "hook_name", "hook_event", "output", "stdout", "stderr", "exit_code", "outcome"},
	"system/task_started":              {"task_id", "tool_use_id", "description", "subagent_type", "task_type", "workflow_name", "prompt", "skip_transcript"},
	"system/task_progress":             {"task_id", "tool_use_id", "description", "subagent_type", "usage", "last_tool_name", "summary"},
	"system/task_updated":              {"task_id", "patch"},
	"system/task_notification":         {"task_id", "tool_use_id", "status", "output_file", "summary", "usage", "skip_transcript"},
	"system/permission_denied":         {"tool_name", "tool_use_id", "agent_id", "decision_reason_type", "decision_reason", "message"},
	"prompt_suggestion":                {"suggestion"},
	"auth_status":                      {"isAuthenticating", "output", "error"},
	"system/commands_changed":          {"commands"},
	"system/compact_boundary":          {"compact_metadata"},
	"system/elicitation_complete":      {"elicitation_id", "mcp_server_name"},
	"system/files_persisted":           {"failed", "files", "processed_at"},
	"system/informational":             {"content", "level", "prevent_continuation", "tool_use_id"},
	"system/local_command_output":      {"content"},
	"system/memory_recall":             {"memories", "mode"},
	"system/mirror_error":              {"error", "key"},
	"system/model_refusal_fallback":    {"api_refusal_category", "api_refusal_explanation", "content", "direction", "fallback_model", "original_model", "refused_user_message_uuid", "request_id", "retracted_message_uuids", "trigger"},
	"system/model_refusal_no_fallback": {"api_refusal_category", "api_refusal_explanation", "content", "original_model", "refused_user_message_uuid", "request_id"},
	"system/notification":              {"color", "key", "priority", "text", "timeout_ms"},
	"system/plugin_install":            {"error", "name", "status"},
	"system/session_state_changed":     {"state"},
	"system/worker_shutting_down":      {"reason"},
	"control_request":                  {"request_id", "request"},
	"control_response":                 {"response"},
	"tool_progress":                    {"tool_use_id", "tool_name", "parent_tool_use_id", "elapsed_time_seconds", "task_id"},
	"tool_use_summary":                 {"summary", "preceding_tool_use_ids"},
	"result": {"duration_ms", "duration_api_ms", "is_error", "num_turns", "result", "stop_reason",
		"total_cost_usd", "usage", "modelUsage", "permission_denials", "structured_output",
		"deferred_tool_use", "api_error_status", "terminal_reason", "ttft_ms", "ttft_stream_ms",
		"time_to_request_ms", "fast_mode_state", "errors", "origin", "time_origin_ms",
		"time_to_request_from_spawn_ms", "warm_spare_claimed"},
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
	switch {
	case strings.HasPrefix(nt, "control_request/") && !handledTypes[nt] && nt != "control_request/":
		c.Disposition, c.Reason = event.DispositionIgnored, controlIgnored
	case ignoredReason[nt] != "":
		c.Disposition, c.Reason = event.DispositionIgnored, ignoredReason[nt]
	case handledTypes[nt], strings.HasPrefix(nt, "result/"):
		c.Disposition = event.DispositionHandled
	case strings.HasPrefix(nt, "user/"):
		// A user message mixing tool results with other blocks: the tool
		// results are mapped, the rest is the echoed prompt.
		if strings.Contains(nt, "tool_result") {
			c.Disposition = event.DispositionHandled
		}
	case strings.HasPrefix(nt, "assistant/"):
		c.Disposition = event.DispositionHandled
		for _, k := range strings.Split(strings.TrimPrefix(nt, "assistant/"), "+") {
			if !slices.Contains(handledBlocks, k) {
				c.Disposition = event.DispositionUnknown
			}
		}
		if v.Get("message.model").String() == "<synthetic>" {
			c.Disposition = event.DispositionHandled
		}
	}
	if c.Disposition != event.DispositionUnknown {
		c.UnknownFields = unknownFields(v, nt)
	}
	return c
}

// unknownFields lists the top-level fields of v that are not known for its
// native type, in the order they appear.
func unknownFields(v gjson.Result, nt string) []string {
	known, ok := knownFields[nt]
	if !ok {
		known = knownFields[v.Get("type").String()]
	}
	return census.Extra(v, "", commonFields, known)
}
