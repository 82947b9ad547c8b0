package opencode

import (
	"strings"

	"github.com/evcap/evcap/event"
	"github.com/tidwall/gjson"
)

// opencode runs a subagent (the task tool) as a child session: a
// session.created whose info.parentID is the calling session, then the
// child's own messages, parts and status on the same bus. This file ties
// a child session to the task tool call that made it and marks the child's
// events with that call (ParentToolCallID) and the child's identity
// (Agent). `opencode run --format json` shows only the parent session, so
// there the task call and its result are all there is.

// child is a session started by a task tool call.
type child struct {
	toolCallID string
	agent      event.Agent // ID (the child session id) and Name
}

// taskCall is a task tool call of some session, waiting to be tied to the
// child session it starts.
type taskCall struct {
	session, callID, agent, child string
}

// noteTask remembers a task tool part: its subagent type and, once the
// part's metadata names it, its child session.
func (n *Normalizer) noteTask(sid string, part gjson.Result) {
	if part.Get("tool").String() != "task" {
		return
	}
	callID := part.Get("callID").String()
	if callID == "" {
		return
	}
	st := part.Get("state")
	var tc *taskCall
	for _, t := range n.tasks {
		if t.callID == callID {
			tc = t
		}
	}
	if tc == nil {
		tc = &taskCall{session: sid, callID: callID}
		n.tasks = append(n.tasks, tc)
	}
	if a := st.Get("input.subagent_type").String(); a != "" {
		tc.agent = a
	}
	if c := st.Get("metadata.sessionId").String(); c != "" {
		tc.child = c
		ch := n.children[c]
		if ch == nil {
			ch = &child{agent: event.Agent{ID: c}}
			n.children[c] = ch
		}
		ch.toolCallID = callID
		if ch.agent.Name == "" {
			ch.agent.Name = tc.agent
		}
	}
}

// childCreated handles the session.created of a child session: it ties
// the child to the oldest task call of its parent not tied yet, and
// reports the subagent's start.
func (n *Normalizer) childCreated(refs []int64, info gjson.Result) []event.Event {
	id, parent := info.Get("id").String(), info.Get("parentID").String()
	ch := n.children[id]
	if ch == nil {
		ch = &child{agent: event.Agent{ID: id}}
		n.children[id] = ch
	}
	for _, t := range n.tasks {
		if t.session == parent && (t.child == "" || t.child == id) && ch.toolCallID == "" {
			t.child, ch.toolCallID = id, t.callID
			if ch.agent.Name == "" {
				ch.agent.Name = t.agent
			}
		}
	}
	title := info.Get("title").String()
	if ch.agent.Name == "" {
		ch.agent.Name = agentFromTitle(title)
	}
	a := ch.agent
	a.Description, a.Status = title, "running"
	return []event.Event{{Kind: event.KindAgent, Phase: event.PhaseStarted, SessionID: id,
		ParentToolCallID: ch.toolCallID, Agent: &a, Cause: refs}}
}

// agentFromTitle reads the agent name from a child session title such as
// "List project files (@general subagent)".
func agentFromTitle(title string) string {
	_, rest, ok := strings.Cut(title, "(@")
	if !ok {
		return ""
	}
	name, _, _ := strings.Cut(rest, " ")
	return strings.TrimSuffix(name, ")")
}

// childIdle reports that a child session went idle: the subagent is done.
func (n *Normalizer) childIdle(refs []int64, sid string) []event.Event {
	ch := n.children[sid]
	a := ch.agent
	a.Status = "completed"
	return []event.Event{{Kind: event.KindAgent, Phase: event.PhaseCompleted, SessionID: sid,
		ParentToolCallID: ch.toolCallID, Agent: &a, Cause: refs}}
}

// nestChild marks the events of a child session's work as the subagent's.
func (n *Normalizer) nestChild(sid string, evs []event.Event) []event.Event {
	ch := n.children[sid]
	if ch == nil {
		return evs
	}
	for i := range evs {
		if evs[i].Kind == event.KindAgent {
			continue
		}
		if evs[i].ParentToolCallID == "" {
			evs[i].ParentToolCallID = ch.toolCallID
		}
		if evs[i].Agent == nil {
			a := event.Agent{ID: ch.agent.ID, Name: ch.agent.Name}
			evs[i].Agent = &a
		}
	}
	return evs
}
