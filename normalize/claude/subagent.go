package claude

import (
	"github.com/evcap/evcap/event"
	"github.com/tidwall/gjson"
)

// A subagent's lines carry parent_tool_use_id, the id of the Task (or
// Agent) tool call that started it. Who the subagent is comes from two
// places: the tool call's input (subagent_type) and the system/task_*
// lines, which add the task_id. This file keeps that identity and puts it
// on the subagent's events.

// noteSubagent remembers a Task/Agent tool call as the start of a subagent.
func (n *Normalizer) noteSubagent(toolCallID, name string, input gjson.Result) {
	if toolCallID == "" || (name != "Task" && name != "Agent") {
		return
	}
	a := n.agentFor(n.keep(toolCallID))
	if t := input.Get("subagent_type").String(); t != "" {
		a.Name = n.keep(t)
	}
}

// agentFor returns the identity of the subagent started by toolCallID,
// making an empty one on first use (toolCallID must be one keep gave).
func (n *Normalizer) agentFor(toolCallID string) *event.Agent {
	a, ok := n.agents[toolCallID]
	if !ok {
		a = &event.Agent{}
		n.agents[toolCallID] = a
	}
	return a
}

// identity is what every event of a subagent carries: its id and name.
func (n *Normalizer) identity(parent string) *event.Agent {
	a := n.agentFor(parent)
	return &event.Agent{ID: a.ID, Name: a.Name}
}

// nest marks evs as the work of the subagent started by parent (no change
// for the main agent, parent ""). Events that already name their parent
// (agent events about a subagent) keep it.
func (n *Normalizer) nest(parent string, evs []event.Event) []event.Event {
	if parent == "" {
		return evs
	}
	for i := range evs {
		if evs[i].ParentToolCallID != "" {
			continue
		}
		evs[i].ParentToolCallID = parent
		evs[i].Agent = n.identity(parent)
	}
	return evs
}

// task maps system/task_started, task_progress, task_updated and
// task_notification to agent events about the subagent (or background
// task) they name. The event's ParentToolCallID is the tool call that
// started it, when known; the line itself belongs to the agent that made
// that call.
func (n *Normalizer) task(ref int64, v gjson.Result) []event.Event {
	taskID := n.keep(v.Get("task_id").String())
	toolID := n.keep(v.Get("tool_use_id").String())
	if toolID == "" {
		toolID = n.taskTool[taskID]
	}
	a := &event.Agent{ID: taskID}
	if toolID != "" {
		n.taskTool[taskID] = toolID
		known := n.agentFor(toolID)
		known.ID = taskID
		if t := v.Get("subagent_type").String(); t != "" {
			known.Name = n.keep(t)
		}
		a.Name = known.Name
	}
	if a.Name == "" {
		a.Name = v.Get("subagent_type").String()
	}
	if a.Name == "" {
		a.Name = v.Get("task_type").String()
	}
	a.Description = v.Get("description").String()
	a.Summary = v.Get("summary").String()
	ph := event.PhaseUpdated
	switch v.Get("subtype").String() {
	case "task_started":
		ph, a.Status = event.PhaseStarted, "running"
	case "task_progress":
		a.Status = "running"
	case "task_updated":
		p := v.Get("patch")
		a.Status = p.Get("status").String()
		if d := p.Get("description").String(); d != "" {
			a.Description = d
		}
		ph = agentPhase(a.Status, ph)
	case "task_notification":
		a.Status = v.Get("status").String()
		ph = agentPhase(a.Status, event.PhaseCompleted)
	}
	return []event.Event{{Kind: event.KindAgent, Phase: ph, ParentToolCallID: toolID,
		SessionID: v.Get("session_id").String(), Agent: a, Cause: []int64{ref}}}
}

// agentPhase is the phase for a task status word; other words keep def.
func agentPhase(status string, def event.Phase) event.Phase {
	switch status {
	case "completed", "stopped":
		return event.PhaseCompleted
	case "failed", "killed":
		return event.PhaseFailed
	}
	return def
}
