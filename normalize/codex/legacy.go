package codex

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/evcap/evcap/event"
	"github.com/evcap/evcap/internal/textcut"
	"github.com/tidwall/gjson"
)

// legacyState is what the legacy protocol needs kept between lines.
type legacyState struct {
	// Blocks being streamed by *_delta events, and the counters their
	// part ids are made from (the protocol gives text no id).
	textOpen, thinkOpen, rawOpen bool
	textSeq, thinkSeq, rawSeq    int
	// lastUsage and lastRate suppress repeats: codex prints the same
	// token_count twice per model call.
	lastUsage event.Usage
	sawUsage  bool
	lastRate  map[string]string
	// taskErr is the message of a fatal error whose result has not been
	// emitted yet (it comes at task_complete, or at the end of the stream).
	taskErr string
	// patches holds the "<kind> <path>" lines of a patch_apply_begin, for
	// the result at patch_apply_end.
	patches map[string]string
}

func newLegacyState() legacyState {
	return legacyState{lastRate: map[string]string{}, patches: map[string]string{}}
}

// flushFailure emits the failed result of a fatal error reported earlier
// in the task, if any.
func (s *legacyState) flushFailure(cause []int64) []event.Event {
	if s.taskErr == "" {
		return nil
	}
	msg := s.taskErr
	s.taskErr = ""
	return []event.Event{{Kind: event.KindResult, Phase: event.PhaseFailed, Cause: cause,
		Result: &event.Result{Subtype: "error", IsError: true, Text: msg}}}
}

// legacyLine normalizes one line of the legacy protocol: the
// {"id":"0","msg":{"type":…}} events (codex-rs EventMsg), and the two
// lines codex exec printed before them, the configuration summary and the
// prompt.
func (n *Normalizer) legacyLine(ref int64, v gjson.Result) []event.Event {
	cause := []int64{ref}
	s := &n.legacy
	msg := v.Get("msg")
	if !msg.IsObject() {
		if v.Get("model").Exists() {
			return []event.Event{{Kind: event.KindInit, Phase: event.PhaseCompleted,
				Model: v.Get("model").String(), Cause: cause}}
		}
		return nil // the prompt line
	}
	typ := msg.Get("type").String()
	str := func(k string) string { return msg.Get(k).String() }
	switch typ {
	case "session_configured":
		return []event.Event{{Kind: event.KindInit, Phase: event.PhaseCompleted,
			SessionID: str("session_id"), Model: str("model"), Cause: cause}}
	case "task_started":
		out := s.flushFailure(cause)
		n.turnOpen = true
		return append(out, event.Event{Kind: event.KindStatus, Phase: event.PhaseUpdated, Status: "task_started",
			NativeType: "legacy/task_started", Cause: cause})
	case "task_complete":
		n.turnOpen, n.sawTerminal = false, true
		if out := s.flushFailure(cause); out != nil {
			return out
		}
		return []event.Event{{Kind: event.KindResult, Phase: event.PhaseCompleted, Cause: cause,
			Result: &event.Result{Subtype: "success", Text: str("last_agent_message")}}}
	case "turn_aborted":
		n.turnOpen, n.sawTerminal = false, true
		s.taskErr = ""
		return []event.Event{{Kind: event.KindResult, Phase: event.PhaseFailed, Cause: cause,
			Result: &event.Result{Subtype: "aborted", IsError: true, Text: str("reason")}}}

	case "agent_message_delta":
		return n.legacyDelta(event.KindText, &s.textOpen, &s.textSeq, "agent_message", str("delta"), cause)
	case "agent_message":
		return n.legacyWhole(event.KindText, &s.textOpen, &s.textSeq, "agent_message", str("message"),
			messagePhase(msg), cause)
	case "agent_reasoning_delta":
		return n.legacyDelta(event.KindThinking, &s.thinkOpen, &s.thinkSeq, "agent_reasoning", str("delta"), cause)
	case "agent_reasoning":
		return n.legacyWhole(event.KindThinking, &s.thinkOpen, &s.thinkSeq, "agent_reasoning", str("text"), "", cause)
	case "agent_reasoning_raw_content_delta":
		return n.legacyDelta(event.KindThinking, &s.rawOpen, &s.rawSeq, "agent_reasoning_raw", str("delta"), cause)
	case "agent_reasoning_raw_content":
		return n.legacyWhole(event.KindThinking, &s.rawOpen, &s.rawSeq, "agent_reasoning_raw", str("text"), "", cause)

	case "exec_command_begin":
		return n.legacyCall(str("call_id"), bashTool(argvCommand(msg.Get("command"))), cause)
	case "exec_command_end":
		id := str("call_id")
		out := n.legacyCall(id, event.Tool{Name: "Bash"}, cause)
		output := str("aggregated_output")
		if !msg.Get("aggregated_output").Exists() {
			output = str("stdout") + str("stderr")
		}
		code := msg.Get("exit_code")
		isErr := code.Int() != 0
		if isErr && output == "" {
			output = "exit code " + code.Raw
		}
		return append(out, toolResult(id, isErr, output, cause))
	case "patch_apply_begin":
		id := str("call_id")
		var paths, lines []string
		var changes []map[string]string
		msg.Get("changes").ForEach(func(k, c gjson.Result) bool {
			kind := ""
			c.ForEach(func(ck, _ gjson.Result) bool { kind = ck.String(); return false })
			paths = append(paths, k.String())
			lines = append(lines, kind+" "+k.String())
			changes = append(changes, map[string]string{"path": k.String(), "kind": kind})
			return true
		})
		s.patches[n.keeper.Keep(id)] = strings.Join(lines, "\n")
		in, _ := json.Marshal(changes)
		return n.legacyCall(id, event.Tool{Name: "file_change", Summary: textcut.Summary(strings.Join(paths, ", ")),
			Input: in}, cause)
	case "patch_apply_end":
		id := str("call_id")
		out := n.legacyCall(id, event.Tool{Name: "file_change"}, cause)
		ok := msg.Get("success").Bool()
		output := s.patches[id]
		delete(s.patches, id)
		if !ok {
			output = strings.TrimSpace(str("stderr") + "\n" + str("stdout"))
		}
		return append(out, toolResult(id, !ok, output, cause))
	case "mcp_tool_call_begin":
		inv := msg.Get("invocation")
		return n.legacyCall(str("call_id"), mcpTool(inv.Get("server").String(), inv.Get("tool").String(),
			inv.Get("arguments")), cause)
	case "mcp_tool_call_end":
		id := str("call_id")
		inv := msg.Get("invocation")
		out := n.legacyCall(id, mcpTool(inv.Get("server").String(), inv.Get("tool").String(), inv.Get("arguments")), cause)
		res := msg.Get("result")
		// Result<CallToolResult, String> in serde's external tagging.
		if e := res.Get("Err"); e.Exists() {
			return append(out, toolResult(id, true, e.String(), cause))
		}
		okv := res.Get("Ok")
		isErr := okv.Get("isError").Bool() || okv.Get("is_error").Bool()
		return append(out, toolResult(id, isErr, mcpText(okv.Get("content")), cause))
	case "web_search_begin":
		return nil // the query comes with web_search_end
	case "web_search_end":
		id := str("call_id")
		out := n.legacyCall(id, webSearchTool(str("query")), cause)
		return append(out, toolResult(id, false, "", cause))
	case "view_image_tool_call":
		id := str("call_id")
		in, _ := json.Marshal(map[string]string{"path": str("path")})
		out := n.legacyCall(id, event.Tool{Name: "view_image", Summary: textcut.Summary(str("path")), Input: in}, cause)
		return append(out, toolResult(id, false, "", cause))

	case "exec_approval_request":
		return []event.Event{{Kind: event.KindPermission, Phase: event.PhaseStarted, ToolCallID: str("call_id"),
			Cause: cause, Permission: &event.Permission{ID: str("call_id"), Tool: "Bash",
				Summary: textcut.Summary(unwrapCommand(argvCommand(msg.Get("command")))), Message: str("reason")}}}
	case "apply_patch_approval_request":
		var paths []string
		msg.Get("changes").ForEach(func(k, _ gjson.Result) bool { paths = append(paths, k.String()); return true })
		return []event.Event{{Kind: event.KindPermission, Phase: event.PhaseStarted, ToolCallID: str("call_id"),
			Cause: cause, Permission: &event.Permission{ID: str("call_id"), Tool: "file_change",
				Summary: textcut.Summary(strings.Join(paths, ", ")), Message: str("reason")}}}

	case "token_count":
		return n.legacyTokens(msg, cause)

	case "error":
		// EventMsg::Error ends the task; its result follows at
		// task_complete or the end of the stream.
		s.taskErr = n.keeper.Keep(str("message"))
		if s.taskErr == "" {
			s.taskErr = "error"
		}
		return []event.Event{{Kind: event.KindError, Phase: event.PhaseFailed, Cause: cause,
			Error: &event.Error{Type: "error", Message: str("message"), Fatal: true}}}
	case "stream_error", "background_event":
		if r, ok := parseRetry(str("message")); ok {
			return []event.Event{{Kind: event.KindRetry, Phase: event.PhaseUpdated, Retry: &r, Cause: cause}}
		}
		if typ == "background_event" {
			return []event.Event{{Kind: event.KindStatus, Phase: event.PhaseUpdated, NativeType: "legacy/" + typ,
				Status: textcut.SummaryNoControls(str("message")), Cause: cause}}
		}
		return []event.Event{{Kind: event.KindError, Phase: event.PhaseFailed, Cause: cause,
			Error: &event.Error{Type: "stream_error", Message: str("message")}}}
	case "warning":
		return []event.Event{{Kind: event.KindError, Phase: event.PhaseFailed, Cause: cause,
			Error: &event.Error{Type: "warning", Message: str("message")}}}
	case "deprecation_notice":
		m := str("summary")
		if d := str("details"); d != "" {
			m += ": " + d
		}
		return []event.Event{{Kind: event.KindError, Phase: event.PhaseFailed, Cause: cause,
			Error: &event.Error{Type: "deprecation_notice", Message: m}}}

	case "plan_update":
		done, all := 0, 0
		for _, p := range msg.Get("plan").Array() {
			all++
			if p.Get("status").String() == "completed" {
				done++
			}
		}
		return []event.Event{{Kind: event.KindStatus, Phase: event.PhaseUpdated, NativeType: "legacy/plan_update",
			Status: fmt.Sprintf("plan %d/%d", done, all), Cause: cause}}
	case "context_compacted", "undo_started", "undo_completed", "entered_review_mode", "exited_review_mode":
		return []event.Event{{Kind: event.KindStatus, Phase: event.PhaseUpdated, NativeType: "legacy/" + typ,
			Status: typ, Cause: cause}}
	}
	if _, ok := legacyIgnored[typ]; ok {
		return nil
	}
	return []event.Event{unknown(ref, "legacy/"+typ)}
}

// legacyDelta emits a piece of a streamed block, opening the block (and
// giving it the next part id) at its first piece.
func (n *Normalizer) legacyDelta(kind event.Kind, open *bool, seq *int, prefix, delta string, cause []int64) []event.Event {
	var out []event.Event
	if !*open {
		*open = true
		*seq++
		out = append(out, event.Event{Kind: kind, Phase: event.PhaseStarted, PartID: partID(prefix, *seq), Cause: cause})
	}
	if delta == "" {
		return out
	}
	return append(out, event.Event{Kind: kind, Phase: event.PhaseDelta, PartID: partID(prefix, *seq), Text: delta, Cause: cause})
}

// legacyWhole emits a whole block, closing the streamed one it completes.
func (n *Normalizer) legacyWhole(kind event.Kind, open *bool, seq *int, prefix, text string, mp event.MessagePhase, cause []int64) []event.Event {
	if !*open {
		*seq++
	}
	*open = false
	if text == "" {
		return nil
	}
	return []event.Event{{Kind: kind, Phase: event.PhaseCompleted, PartID: partID(prefix, *seq), Text: text,
		MessagePhase: mp, Cause: cause}}
}

func partID(prefix string, seq int) string { return fmt.Sprintf("%s_%d", prefix, seq) }

// legacyCall reports the call id once; t is used when the begin event
// was not in the stream.
func (n *Normalizer) legacyCall(id string, t event.Tool, cause []int64) []event.Event {
	if n.called[id] {
		return nil
	}
	n.called[n.keeper.Keep(id)] = true
	return []event.Event{{Kind: event.KindTool, Phase: event.PhaseCompleted, ToolCallID: id, Tool: &t, Cause: cause}}
}

// legacyTokens reads a token_count. Codex 0.2x printed the usage of the
// last model call flat in the event; later versions print info with the
// running totals (total_token_usage) and the last call's usage, and the
// account's rate-limit windows beside it.
func (n *Normalizer) legacyTokens(msg gjson.Result, cause []int64) []event.Event {
	s := &n.legacy
	var out []event.Event
	var u event.Usage
	src := msg
	switch {
	case msg.Get("info.total_token_usage").IsObject():
		src, u.Cumulative = msg.Get("info.total_token_usage"), true
	case !msg.Get("input_tokens").Exists():
		src = gjson.Result{}
	}
	if src.Exists() {
		u.InputTokens = src.Get("input_tokens").Int()
		u.OutputTokens = src.Get("output_tokens").Int()
		u.CacheReadTokens = src.Get("cached_input_tokens").Int()
		u.ReasoningTokens = src.Get("reasoning_output_tokens").Int()
		if !s.sawUsage || u != s.lastUsage || !u.Cumulative {
			s.sawUsage, s.lastUsage = true, u
			uu := u
			out = append(out, event.Event{Kind: event.KindUsage, Phase: event.PhaseUpdated, Usage: &uu, Cause: cause})
		}
	}
	for _, w := range []string{"primary", "secondary"} {
		rl := msg.Get("rate_limits." + w)
		if !rl.IsObject() || s.lastRate[w] == rl.Raw {
			continue
		}
		s.lastRate[w] = n.keeper.Keep(rl.Raw)
		out = append(out, event.Event{Kind: event.KindRateLimit, Phase: event.PhaseUpdated, Cause: cause,
			RateLimit: &event.RateLimit{Type: rateWindow(w, rl.Get("window_minutes").Int()),
				ResetsAt: rl.Get("resets_at").Int(), Utilization: rl.Get("used_percent").Float() / 100}})
	}
	return out
}

// rateWindow names a rate-limit window the way the normalized model does
// ("five_hour", "seven_day"), else by codex's own slot name.
func rateWindow(slot string, minutes int64) string {
	switch minutes {
	case 300:
		return "five_hour"
	case 10080:
		return "seven_day"
	}
	return slot
}

// argvCommand turns a legacy command vector (["bash","-lc","ls"]) into the
// one string the newer protocols report ("bash -lc ls"); unwrapCommand then
// finds the model's command in it.
func argvCommand(argv gjson.Result) string {
	if argv.Type == gjson.String {
		return argv.String()
	}
	var parts []string
	arr := argv.Array()
	for i, a := range arr {
		p := a.String()
		// The script of a login shell is one argument: quote it as
		// codex's newer output does, so that unwrapping gives it back.
		if i == len(arr)-1 && i == 2 && strings.ContainsAny(p, " '\"$;&|<>") {
			p = "'" + strings.ReplaceAll(p, "'", `'\''`) + "'"
		}
		parts = append(parts, p)
	}
	return strings.Join(parts, " ")
}
