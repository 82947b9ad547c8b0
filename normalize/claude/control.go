package claude

import (
	"github.com/evcap/evcap/event"
	"github.com/evcap/evcap/internal/textcut"
	"github.com/tidwall/gjson"
)

// This file maps the lines that are not the model's output but the CLI's
// dealings around it: hooks, rate limits, permission prompts (the SDK
// control protocol of --input-format stream-json) and the long tail of
// system notices.

// permRequest is a can_use_tool request waiting for its reply.
type permRequest struct {
	toolCallID string
	tool       string
}

// hook maps system/hook_started, hook_progress and hook_response.
func hook(ref int64, v gjson.Result) event.Event {
	h := &event.Hook{ID: v.Get("hook_id").String(), Name: v.Get("hook_name").String(),
		Event: v.Get("hook_event").String()}
	ev := event.Event{Kind: event.KindHook, Phase: event.PhaseStarted, Hook: h, Cause: []int64{ref}}
	switch v.Get("subtype").String() {
	case "hook_progress":
		ev.Phase = event.PhaseUpdated
		h.Output = textcut.Output(hookOutput(v))
	case "hook_response":
		h.Outcome = v.Get("outcome").String()
		h.Output = textcut.Output(hookOutput(v))
		if x := v.Get("exit_code"); x.Type == gjson.Number {
			code := int(x.Int())
			h.ExitCode = &code
		}
		ev.Phase = event.PhaseCompleted
		if h.Outcome != "" && h.Outcome != "success" {
			ev.Phase = event.PhaseFailed
		}
	}
	return ev
}

// hookOutput is what a hook printed: its combined output when the CLI
// gives one, else stdout and stderr.
func hookOutput(v gjson.Result) string {
	if o := v.Get("output").String(); o != "" {
		return o
	}
	out, errOut := v.Get("stdout").String(), v.Get("stderr").String()
	if out != "" && errOut != "" {
		return out + "\n" + errOut
	}
	return out + errOut
}

// rateLimit maps a rate_limit_event.
func rateLimit(ref int64, v gjson.Result) []event.Event {
	i := v.Get("rate_limit_info")
	return []event.Event{{Kind: event.KindRateLimit, Phase: event.PhaseUpdated,
		SessionID: v.Get("session_id").String(), Cause: []int64{ref},
		RateLimit: &event.RateLimit{Status: i.Get("status").String(), Type: i.Get("rateLimitType").String(),
			ResetsAt: i.Get("resetsAt").Int(), Utilization: i.Get("utilization").Float()}}}
}

// controlRequest maps the CLI's requests to the SDK: can_use_tool (a
// permission prompt) and hook_callback (an SDK-side hook). The others
// drive the session and carry no agent output (see ignoredReason).
func (n *Normalizer) controlRequest(ref int64, v gjson.Result) []event.Event {
	id := v.Get("request_id").String()
	r := v.Get("request")
	switch r.Get("subtype").String() {
	case "can_use_tool":
		tool := r.Get("tool_name").String()
		toolID := r.Get("tool_use_id").String()
		n.perms[n.keep(id)] = permRequest{toolCallID: n.keep(toolID), tool: n.keep(tool)}
		_, summary := toolName(tool, r.Get("input"))
		msg := r.Get("decision_reason").String()
		if msg == "" {
			msg = r.Get("title").String()
		}
		ev := event.Event{Kind: event.KindPermission, Phase: event.PhaseStarted, ToolCallID: toolID,
			Cause: []int64{ref}, Permission: &event.Permission{ID: id, Tool: tool, Summary: summary, Message: msg}}
		n.ownedBy(&ev, r.Get("agent_id").String())
		return []event.Event{ev}
	case "hook_callback":
		in := r.Get("input")
		return []event.Event{{Kind: event.KindHook, Phase: event.PhaseStarted, ToolCallID: r.Get("tool_use_id").String(),
			Cause: []int64{ref}, Hook: &event.Hook{ID: r.Get("callback_id").String(),
				Event: in.Get("hook_event_name").String(), Name: in.Get("hook_event_name").String()}}}
	}
	return nil
}

// controlResponse maps the SDK's reply to a can_use_tool request (seen when
// the SDK side of the conversation is normalized too) to a permission
// reply. Replies to other requests carry no agent output.
func (n *Normalizer) controlResponse(ref int64, v gjson.Result) []event.Event {
	r := v.Get("response")
	id := r.Get("request_id").String()
	p, ok := n.perms[id]
	if !ok {
		return nil
	}
	delete(n.perms, id)
	perm := &event.Permission{ID: id, Tool: p.tool}
	if r.Get("subtype").String() == "error" {
		perm.Reply, perm.Message = "error", r.Get("error").String()
	} else {
		perm.Reply = r.Get("response.behavior").String()
		perm.Message = r.Get("response.message").String()
	}
	return []event.Event{{Kind: event.KindPermission, Phase: event.PhaseCompleted, ToolCallID: p.toolCallID,
		Cause: []int64{ref}, Permission: perm}}
}

// permissionDenied maps system/permission_denied: the CLI refused a tool
// use by itself (a rule, the permission mode) without asking.
func (n *Normalizer) permissionDenied(ref int64, v gjson.Result) []event.Event {
	ev := event.Event{Kind: event.KindPermission, Phase: event.PhaseCompleted,
		ToolCallID: v.Get("tool_use_id").String(), Cause: []int64{ref},
		Permission: &event.Permission{Tool: v.Get("tool_name").String(), Reply: "deny",
			Message: v.Get("message").String()}}
	n.ownedBy(&ev, v.Get("agent_id").String())
	return []event.Event{ev}
}

// ownedBy marks ev as a subagent's when the line names the agent (by its
// task id) and the agent is a known subagent.
func (n *Normalizer) ownedBy(ev *event.Event, agentID string) {
	if agentID == "" {
		return
	}
	if parent, ok := n.taskTool[agentID]; ok {
		ev.ParentToolCallID = parent
		ev.Agent = n.identity(parent)
		return
	}
	ev.Agent = &event.Agent{ID: agentID}
}

// systemStatus maps the system notices that say where the session is
// (compaction, session state, notifications…) to a status event that
// keeps the subtype in NativeType.
func systemStatus(ref int64, v gjson.Result) event.Event {
	sub := v.Get("subtype").String()
	st := sub
	switch sub {
	case "session_state_changed":
		st = v.Get("state").String()
	case "plugin_install":
		st = "plugin_" + v.Get("status").String()
	case "compact_boundary":
		st = "compacted"
	}
	return event.Event{Kind: event.KindStatus, Phase: event.PhaseUpdated, Status: st,
		SessionID: v.Get("session_id").String(), NativeType: "system/" + sub, Cause: []int64{ref}}
}
