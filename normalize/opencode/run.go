package opencode

import (
	"github.com/evcap/evcap/event"
	"github.com/evcap/evcap/internal/census"
	"github.com/evcap/evcap/internal/jsonpick"
	"github.com/tidwall/gjson"
)

// run handles one line of `opencode run --format json`, v, whose
// top-level fields f holds.
func (n *Normalizer) run(refs []int64, v gjson.Result, f *lineFields) []event.Event {
	sid := f[lSessionID].String()
	if sid != "" {
		n.turn.sessionID = sid
	}
	part := f[lPart]
	switch f[lType].String() {
	case "step_start":
		return nil
	case "text":
		return n.wholePart(refs, sid, part, event.KindText)
	case "reasoning":
		return n.wholePart(refs, sid, part, event.KindThinking)
	case "tool_use":
		return n.toolPart(refs, sid, part)
	case "step_finish":
		return n.stepFinish(refs, sid, part)
	case "error":
		return n.fatalError(refs, sid, f[lError])
	case "done":
		out := []event.Event{{Kind: event.KindStatus, Phase: event.PhaseUpdated, SessionID: sid,
			Status: "idle", NativeType: "done", Cause: refs}}
		return append(out, n.result(refs)...)
	}
	return []event.Event{unknown(refs, sid, runType(v))}
}

// wholePart emits the completed event of a text or reasoning part.
func (n *Normalizer) wholePart(refs []int64, sid string, part gjson.Result, kind event.Kind) []event.Event {
	var f partFieldSet
	jsonpick.Pick(part, partKeys, f[:])
	text := f[pText].String()
	if kind == event.KindText {
		n.turn.lastText = text
	}
	return []event.Event{{Kind: kind, Phase: event.PhaseCompleted, SessionID: sid,
		MessageID: f[pMessageID].String(), PartID: f[pID].String(),
		Text: text, Cause: refs}}
}

// stepFinish emits the usage of one model call and adds it to the turn.
func (n *Normalizer) stepFinish(refs []int64, sid string, part gjson.Result) []event.Event {
	u := usageOf(part)
	n.noteStep(refs, part, u)
	return []event.Event{{Kind: event.KindUsage, Phase: event.PhaseUpdated, SessionID: sid,
		MessageID: part.Get("messageID").String(), PartID: part.Get("id").String(),
		Usage: &u, Cause: refs}}
}

// fatalError maps an opencode error object ({name, data{message,...}}).
// Only the name and the message are kept: data.responseHeaders and
// data.responseBody can carry credentials.
func (n *Normalizer) fatalError(refs []int64, sid string, e gjson.Result) []event.Event {
	n.turn.fatal = true
	n.turn.causes = mergeRefs(n.turn.causes, refs)
	msg := e.Get("data.message").String()
	if msg == "" {
		msg = e.Get("message").String()
	}
	if msg == "" {
		msg = e.Get("name").String()
	}
	return []event.Event{{Kind: event.KindError, Phase: event.PhaseFailed, SessionID: sid,
		Error: &event.Error{Type: e.Get("name").String(), Message: msg, Fatal: true}, Cause: refs}}
}

// toolPart maps a tool part (from run's tool_use or the bus's
// message.part.updated) by its state.
func (n *Normalizer) toolPart(refs []int64, sid string, part gjson.Result) []event.Event {
	var f partFieldSet
	jsonpick.Pick(part, partKeys, f[:])
	var st stateFieldSet
	jsonpick.Pick(f[pState], stateKeys, st[:])
	status := st[sStatus].String()
	base := event.Event{SessionID: sid, MessageID: f[pMessageID].String(),
		PartID: f[pID].String(), ToolCallID: f[pCallID].String(), Cause: refs}
	input := st[sInput]
	tool := toolOf(f[pTool].String(), input)

	key := base.PartID + "\x00" + status + "\x00" + input.Raw
	if base.PartID != "" && n.tools[base.PartID] == key {
		return nil // a running update that only streamed metadata
	}
	if base.PartID != "" {
		n.tools[base.PartID] = key
	}

	ev := base
	ev.Kind = event.KindTool
	ev.Tool = tool
	switch status {
	case "pending":
		ev.Phase = event.PhaseStarted
		return []event.Event{ev}
	case "running":
		ev.Phase = event.PhaseUpdated
		return []event.Event{ev}
	case "completed", "error":
		ev.Phase = event.PhaseCompleted
		res := base
		res.Kind = event.KindToolResult
		res.Phase = event.PhaseCompleted
		// The output, the largest value of most tool parts, is decoded
		// only as far as the event keeps it.
		isErr, key := status == "error", "output"
		if isErr {
			res.Phase, key = event.PhaseFailed, "error"
		}
		output, size := jsonpick.CutMember(f[pState], key)
		res.ToolResult = &event.ToolResult{IsError: isErr, Output: output, OutputBytes: size}
		return []event.Event{ev, res}
	}
	return []event.Event{unknown(refs, sid, "tool/"+status)}
}

// runType is the census name of a run line: its type.
func runType(v gjson.Result) string {
	t := v.Get("type").String()
	if t == "" {
		return census.NoType
	}
	return t
}

func unknown(refs []int64, sid, native string) event.Event {
	return event.Event{Kind: event.KindUnknown, Phase: event.PhaseUpdated, SessionID: sid,
		NativeType: native, Cause: refs}
}
