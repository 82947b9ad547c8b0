package opencode

import (
	"strings"

	"github.com/evcap/evcap/event"
	"github.com/evcap/evcap/internal/census"
	"github.com/tidwall/gjson"
)

// ignoredBus lists the bus event types dropped on purpose, with the reason
// the census reports.
var ignoredBus = map[string]string{
	"server.connected":     "connection handshake",
	"server.heartbeat":     "keep-alive",
	"session.updated":      "session metadata (title, directory, totals), not a run event",
	"session.idle":         "deprecated duplicate of session.status idle",
	"session.diff":         "session file-diff summary; tool events carry the edits",
	"session.deleted":      "session bookkeeping",
	"session.compacted":    "session bookkeeping",
	"message.removed":      "undo/revert bookkeeping",
	"message.part.removed": "undo/revert bookkeeping",
	"file.edited":          "file notification; tool events carry the edits",
	"file.watcher.updated": "file notification; tool events carry the edits",
	"plugin.added":         "server configuration notice",
	"catalog.updated":      "server configuration notice",
	"reference.updated":    "server configuration notice",
	"integration.updated":  "server configuration notice",
	// Found in the @opencode-ai/sdk 1.18.33 event catalog (catalog/opencode.json):
	"integration.connection.updated": "server configuration notice",
	"models-dev.refreshed":           "server configuration notice (model list refreshed)",
	"mcp.tools.changed":              "server configuration notice (an MCP server's tool list)",
	"project.updated":                "project bookkeeping, not a run event",
	"project.directories.updated":    "project bookkeeping, not a run event",
	"vcs.branch.updated":             "git branch notice, not a run event",
	"global.disposed":                "server shutdown notice",
	"server.instance.disposed":       "server shutdown notice",
}

// ignoredBusPrefixes extends ignoredBus to families of server notices.
var ignoredBusPrefixes = map[string]string{
	"lsp.":          "language-server notice",
	"installation.": "installer notice",
	"tui.":          "a command to the terminal UI (toast, prompt, session switch), not a run event",
}

// busIgnoreReason says why a bus event type is dropped, or "".
func busIgnoreReason(typ string) string {
	if r, ok := ignoredBus[typ]; ok {
		return r
	}
	for p, r := range ignoredBusPrefixes {
		if strings.HasPrefix(typ, p) {
			return r
		}
	}
	return ""
}

// bus handles one /event payload {"id","type","properties"}. Events of a
// child session (a subagent) are marked as its work.
func (n *Normalizer) bus(refs []int64, v gjson.Result) []event.Event {
	p := v.Get("properties")
	sid := p.Get("sessionID").String()
	if sid == "" && v.Get("type").String() == "session.created" {
		sid = p.Get("info.id").String()
	}
	return n.nestChild(sid, n.busEvent(refs, v))
}

func (n *Normalizer) busEvent(refs []int64, v gjson.Result) []event.Event {
	typ := v.Get("type").String()
	p := v.Get("properties")
	sid := p.Get("sessionID").String()
	if sid != "" && n.children[sid] == nil {
		n.turn.sessionID = sid
	}
	switch typ {
	case "message.updated":
		info := p.Get("info")
		id := info.Get("id").String()
		if info.Get("role").String() == "user" && id != "" {
			n.userMsgs[id] = true
		}
		return nil
	case "message.part.updated":
		return n.partUpdated(refs, sid, p.Get("part"))
	case "message.part.delta":
		return n.partDelta(refs, sid, p)
	case "session.status":
		return n.sessionStatus(refs, sid, p.Get("status"))
	case "session.error":
		return n.fatalError(refs, sid, p.Get("error"))
	case "session.created":
		info := p.Get("info")
		if info.Get("parentID").String() != "" {
			return n.childCreated(refs, info)
		}
		if sid == "" {
			sid = info.Get("id").String()
		}
		return []event.Event{{Kind: event.KindInit, Phase: event.PhaseCompleted, SessionID: sid,
			Version: info.Get("version").String(), Cause: refs}}
	case "permission.v2.asked":
		// The v2 permission protocol of the @opencode-ai/sdk types: action
		// and resources instead of permission and patterns, source instead
		// of tool.
		return n.asked(event.Event{Kind: event.KindPermission, Phase: event.PhaseStarted, SessionID: sid,
			ToolCallID: p.Get("source.callID").String(), MessageID: p.Get("source.messageID").String(),
			Permission: &event.Permission{ID: p.Get("id").String(), Tool: p.Get("action").String(),
				Patterns: strs(p.Get("resources"))}, Cause: refs})
	case "permission.asked":
		return n.asked(event.Event{Kind: event.KindPermission, Phase: event.PhaseStarted, SessionID: sid,
			ToolCallID: p.Get("tool.callID").String(), MessageID: p.Get("tool.messageID").String(),
			Permission: &event.Permission{ID: p.Get("id").String(), Tool: p.Get("permission").String(),
				Patterns: strs(p.Get("patterns"))}, Cause: refs})
	case "permission.updated":
		pats := strs(p.Get("pattern"))
		if s := p.Get("pattern"); s.Type == gjson.String {
			pats = []string{s.String()}
		}
		return n.asked(event.Event{Kind: event.KindPermission, Phase: event.PhaseStarted, SessionID: sid,
			ToolCallID: p.Get("callID").String(), MessageID: p.Get("messageID").String(),
			Permission: &event.Permission{ID: p.Get("id").String(), Tool: p.Get("type").String(),
				Patterns: pats}, Cause: refs})
	case "permission.replied", "permission.v2.replied":
		id := p.Get("requestID").String()
		if id == "" {
			id = p.Get("permissionID").String()
		}
		reply := p.Get("reply").String()
		if reply == "" {
			reply = p.Get("response").String()
		}
		ev := event.Event{Kind: event.KindPermission, Phase: event.PhaseCompleted, SessionID: sid,
			Permission: &event.Permission{ID: id, Reply: reply}, Cause: refs}
		if req, ok := n.perms[id]; ok {
			// The reply names only the request: take the tool and the call
			// from it, so a reader sees what was answered.
			delete(n.perms, id)
			ev.ToolCallID, ev.MessageID, ev.Permission.Tool = req.ToolCallID, req.MessageID, req.Permission.Tool
		}
		return []event.Event{ev}
	}
	if busIgnoreReason(typ) != "" {
		return nil
	}
	return []event.Event{unknown(refs, sid, busType(v))}
}

// asked remembers a permission request until its reply and returns it.
func (n *Normalizer) asked(ev event.Event) []event.Event {
	if id := ev.Permission.ID; id != "" {
		n.perms[id] = ev
	}
	return []event.Event{ev}
}

// partUpdated maps message.part.updated by the part's type.
func (n *Normalizer) partUpdated(refs []int64, sid string, part gjson.Result) []event.Event {
	id := part.Get("id").String()
	msg := part.Get("messageID").String()
	ptype := part.Get("type").String()
	if n.userMsgs[msg] {
		if id != "" {
			n.partKind[id] = partInfo{}
			delete(n.early, id)
		}
		return nil
	}
	var kind event.Kind
	switch ptype {
	case "text":
		kind = event.KindText
	case "reasoning":
		kind = event.KindThinking
	case "tool":
		if id != "" {
			n.partKind[id] = partInfo{kind: event.KindTool}
		}
		n.noteTask(sid, part)
		return n.toolPart(refs, sid, part)
	case "step-start":
		return nil
	case "step-finish":
		return n.stepFinish(refs, sid, part)
	default:
		return []event.Event{unknown(refs, sid, "message.part.updated/"+ptype)}
	}

	info, seen := n.partKind[id]
	var out []event.Event
	base := event.Event{Kind: kind, SessionID: sid, MessageID: msg, PartID: id, Cause: refs}
	if !seen {
		info = partInfo{kind: kind}
		n.partKind[id] = info
		if !part.Get("time.end").Exists() {
			ev := base
			ev.Phase = event.PhaseStarted
			out = append(out, ev)
		}
		for _, d := range n.early[id] {
			d.Kind = kind
			out = append(out, d)
		}
		delete(n.early, id)
	}
	if part.Get("time.end").Exists() && !info.completed {
		info.completed = true
		n.partKind[id] = info
		delete(n.snapshots, id)
		ev := base
		ev.Phase = event.PhaseCompleted
		ev.Text = part.Get("text").String()
		if kind == event.KindText && n.children[sid] == nil {
			n.turn.lastText = ev.Text // a subagent's text is not the answer
		}
		out = append(out, ev)
	}
	return out
}

// partDelta maps message.part.delta through the type its part was given.
func (n *Normalizer) partDelta(refs []int64, sid string, p gjson.Result) []event.Event {
	id := p.Get("partID").String()
	field := p.Get("field").String()
	ev := event.Event{Phase: event.PhaseDelta, SessionID: sid, MessageID: p.Get("messageID").String(),
		PartID: id, Text: p.Get("delta").String(), Cause: refs}
	if n.userMsgs[ev.MessageID] {
		return nil
	}
	var out []event.Event
	if n.cumulative && ev.Text != "" {
		var rewritten bool
		ev.Text, rewritten = n.snapshot(id, field, ev.Text)
		if rewritten {
			out = append(out, event.Event{Kind: event.KindStatus, Phase: event.PhaseUpdated, SessionID: sid,
				MessageID: ev.MessageID, PartID: id, Status: StatusSnapshotRewritten,
				NativeType: "message.part.delta", Cause: refs})
		}
	}
	info, seen := n.partKind[id]
	if !seen {
		n.early[id] = append(n.early[id], ev)
		return out
	}
	if field != "text" || (info.kind != event.KindText && info.kind != event.KindThinking) {
		return append(out, unknown(refs, sid, "message.part.delta/"+field))
	}
	ev.Kind = info.kind
	return append(out, ev)
}

// snapshot takes text as the whole of a part's field so far and returns
// what it adds to the text before it, or, when it does not extend that
// text (rewritten), text itself. It remembers text as the field's text.
func (n *Normalizer) snapshot(part, field, text string) (piece string, rewritten bool) {
	fields := n.snapshots[part]
	if fields == nil {
		fields = map[string]string{}
		n.snapshots[part] = fields
	}
	prev := fields[field]
	fields[field] = text
	if strings.HasPrefix(text, prev) {
		return text[len(prev):], false
	}
	return text, true
}

// sessionStatus maps session.status by status.type.
func (n *Normalizer) sessionStatus(refs []int64, sid string, st gjson.Result) []event.Event {
	typ := st.Get("type").String()
	switch typ {
	case "busy", "idle":
		out := []event.Event{{Kind: event.KindStatus, Phase: event.PhaseUpdated, SessionID: sid,
			Status: typ, NativeType: "session.status/" + typ, Cause: refs}}
		if typ == "idle" && n.children[sid] != nil {
			// A subagent is done; the run goes on in its parent.
			return append(out, n.childIdle(refs, sid)...)
		}
		if typ == "idle" && n.turn.active {
			out = append(out, n.result(refs)...)
		}
		return out
	case "retry":
		return []event.Event{{Kind: event.KindRetry, Phase: event.PhaseUpdated, SessionID: sid,
			Retry: &event.Retry{Attempt: int(st.Get("attempt").Int()), Error: st.Get("message").String()},
			Cause: refs}}
	}
	return []event.Event{unknown(refs, sid, "session.status/"+typ)}
}

// busType is the census name of a bus payload: the type, refined by the
// part type, the status or the role where those decide the mapping.
func busType(v gjson.Result) string {
	typ := v.Get("type").String()
	p := v.Get("properties")
	switch typ {
	case "message.part.updated":
		return typ + "/" + p.Get("part.type").String()
	case "session.status":
		return typ + "/" + p.Get("status.type").String()
	case "message.updated":
		return typ + "/" + p.Get("info.role").String()
	}
	if typ == "" {
		return census.NoType
	}
	return typ
}

func strs(v gjson.Result) []string {
	if !v.IsArray() {
		return nil
	}
	var out []string
	for _, s := range v.Array() {
		out = append(out, s.String())
	}
	return out
}
