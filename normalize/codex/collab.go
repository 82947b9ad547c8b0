package codex

import (
	"encoding/json"
	"strings"

	"github.com/evcap/evcap/event"
	"github.com/evcap/evcap/internal/textcut"
	"github.com/tidwall/gjson"
)

// collabItem normalizes a collab_tool_call item: the main agent (or a
// subagent) spawning, messaging, waiting for or closing subagents, each of
// which runs in its own thread.
//
// The call is a tool event named after the collab tool (spawn_agent,
// send_input, wait, close_agent), reported once; its result comes at
// item.completed. Every change of a receiver thread's state in
// agents_states is an agent event about that thread, whose
// ParentToolCallID is the spawn_agent call that started it (or this call,
// when the spawn was not in the stream). A call made from a spawned
// thread carries that thread's parent and identity, so nesting survives.
func (n *Normalizer) collabItem(phase, id string, it gjson.Result, cause []int64) []event.Event {
	tool := it.Get("tool").String()
	var receivers []string
	for _, r := range it.Get("receiver_thread_ids").Array() {
		receivers = append(receivers, r.String())
	}
	sender := it.Get("sender_thread_id").String()
	parent := n.spawnedBy[sender]
	var senderAgent *event.Agent
	if parent != "" {
		senderAgent = &event.Agent{ID: sender}
	}
	if tool == "spawn_agent" {
		for _, r := range receivers {
			if _, ok := n.spawnedBy[r]; !ok {
				n.spawnedBy[n.keeper.Keep(r)] = n.keeper.Keep(id)
			}
		}
	}

	var out []event.Event
	if !n.called[id] && phase != "" {
		n.called[n.keeper.Keep(id)] = true
		summary := it.Get("prompt").String()
		if summary == "" {
			summary = strings.Join(receivers, ", ")
		}
		in, _ := json.Marshal(map[string]any{"receiver_thread_ids": receivers, "prompt": it.Get("prompt").String()})
		out = append(out, event.Event{Kind: event.KindTool, Phase: event.PhaseCompleted, ToolCallID: id,
			ParentToolCallID: parent, Agent: senderAgent, Cause: cause,
			Tool: &event.Tool{Name: tool, Summary: textcut.Summary(summary), Input: in}})
	}

	states := it.Get("agents_states")
	var messages []string
	for _, r := range receivers {
		st := states.Get(gjson.Escape(r))
		if !st.Exists() {
			continue
		}
		status, msg := st.Get("status").String(), st.Get("message").String()
		if msg != "" {
			messages = append(messages, r+": "+msg)
		}
		key := status + "\x00" + msg
		prev, seen := n.agentStatus[r]
		if seen && prev == key {
			continue
		}
		n.agentStatus[n.keeper.Keep(r)] = key
		ph := event.PhaseUpdated
		switch status {
		case "pending_init", "running":
			if !seen {
				ph = event.PhaseStarted
			}
		case "completed", "shutdown":
			ph = event.PhaseCompleted
		case "errored", "not_found":
			ph = event.PhaseFailed
		}
		p := n.spawnedBy[r]
		if p == "" {
			p = id
		}
		out = append(out, event.Event{Kind: event.KindAgent, Phase: ph, ParentToolCallID: p, Cause: cause,
			Agent: &event.Agent{ID: r, Status: status, Summary: textcut.Output(msg)}})
	}

	if phase == "completed" {
		r := toolResult(id, it.Get("status").String() == "failed", strings.Join(messages, "\n"), cause)
		r.ParentToolCallID, r.Agent = parent, senderAgent
		out = append(out, r)
	}
	return out
}
