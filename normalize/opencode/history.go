package opencode

import (
	"strings"

	"github.com/evcap/evcap/event"
	"github.com/evcap/evcap/internal/census"
	"github.com/evcap/evcap/internal/textcut"
	"github.com/tidwall/gjson"
)

// HistoryNormalizer turns a stored opencode session into the same
// normalized events as the run/bus normalizer. Its lines have the shape
// of one element of the server's GET /session/{id}/message answer, one
// message per line with all its parts:
//
//	{"info":{"id":"msg_…","sessionID":"ses_…","role":"assistant",…},"parts":[{"id":"prt_…","type":"text",…},…]}
//
// (evcap import builds the same lines from the message and part tables of
// opencode.db). Parts arrive whole: no deltas, tools in their last state.
//
//	stored line                          normalized events
//	first line                           init completed (sessionId)
//	user message                         none: ignored (the prompt and files the user attached)
//	assistant part text|reasoning        text|thinking completed (messageId, partId)
//	assistant part tool                  tool started (pending), updated (running) or completed, with
//	                                     tool_result completed|failed once it has an outcome
//	assistant part step-finish           usage updated (the step's tokens)
//	assistant part step-start|snapshot|patch|agent|file|compaction|retry
//	                                     none: ignored (bookkeeping the chat view does not show)
//	assistant info.error                 error failed (fatal)
//	end of the stored session            result: completed with the last text, failed after an error,
//	                                     subtype "restored"; "incomplete" when the last assistant message
//	                                     never completed
type HistoryNormalizer struct {
	sawLine    bool
	sessionID  string
	lastText   string
	lastFatal  bool
	incomplete bool
}

// NewHistory returns a HistoryNormalizer at the start of a stored session.
func NewHistory() *HistoryNormalizer { return &HistoryNormalizer{} }

// historyIgnoredParts are the part types of assistant messages the
// history normalizer drops on purpose, and why.
var historyIgnoredParts = map[string]string{
	"step-start": "marks where a model call began; its step-finish carries the usage",
	"snapshot":   "the file snapshot id opencode keeps for undo",
	"patch":      "the files a step changed, for undo; the tool parts show the edits",
	"agent":      "the agent a message was addressed to",
	"file":       "a file attached to the message",
	"compaction": "marks a compacted session",
	"retry":      "a failed model call that was retried; the retried call's parts follow",
}

// Line normalizes one stored message line; ref goes into the Cause of
// every event derived from it.
func (n *HistoryNormalizer) Line(ref int64, line []byte) []event.Event {
	if len(strings.TrimSpace(string(line))) == 0 {
		return nil
	}
	refs := []int64{ref}
	if !gjson.ValidBytes(line) {
		return []event.Event{unknown(refs, n.sessionID, census.Invalid)}
	}
	v := gjson.ParseBytes(line)
	info := v.Get("info")
	if !info.IsObject() {
		return []event.Event{unknown(refs, n.sessionID, census.NoType)}
	}
	var out []event.Event
	if !n.sawLine {
		n.sawLine = true
		n.sessionID = info.Get("sessionID").String()
		out = append(out, event.Event{Kind: event.KindInit, Phase: event.PhaseCompleted, SessionID: n.sessionID,
			Model: info.Get("modelID").String(), Cause: refs})
	}
	switch info.Get("role").String() {
	case "user":
		return out
	case "assistant":
	default:
		return append(out, unknown(refs, n.sessionID, "message/"+info.Get("role").String()))
	}
	msgID := info.Get("id").String()
	for _, p := range v.Get("parts").Array() {
		out = append(out, n.historyPart(refs, msgID, p)...)
	}
	if e := info.Get("error"); e.Exists() {
		msg := e.Get("data.message").String()
		if msg == "" {
			msg = e.Get("name").String()
		}
		n.lastFatal = true
		out = append(out, event.Event{Kind: event.KindError, Phase: event.PhaseFailed, SessionID: n.sessionID,
			MessageID: msgID, Error: &event.Error{Type: e.Get("name").String(), Message: msg, Fatal: true}, Cause: refs})
	}
	n.incomplete = !info.Get("time.completed").Exists() && !info.Get("error").Exists()
	return out
}

func (n *HistoryNormalizer) historyPart(refs []int64, msgID string, p gjson.Result) []event.Event {
	base := event.Event{SessionID: n.sessionID, MessageID: msgID, PartID: p.Get("id").String(), Cause: refs}
	typ := p.Get("type").String()
	switch typ {
	case "text", "reasoning":
		text := p.Get("text").String()
		if text == "" || p.Get("synthetic").Bool() {
			return nil
		}
		ev := base
		ev.Kind, ev.Phase, ev.Text = event.KindText, event.PhaseCompleted, text
		if typ == "reasoning" {
			ev.Kind = event.KindThinking
		} else {
			n.lastText, n.lastFatal = text, false
		}
		return []event.Event{ev}
	case "tool":
		state := p.Get("state")
		ev := base
		ev.Kind, ev.ToolCallID = event.KindTool, p.Get("callID").String()
		ev.Tool = toolOf(p.Get("tool").String(), state.Get("input"))
		switch status := state.Get("status").String(); status {
		case "pending":
			ev.Phase = event.PhaseStarted
			return []event.Event{ev}
		case "running":
			ev.Phase = event.PhaseUpdated
			return []event.Event{ev}
		case "completed", "error":
			ev.Phase = event.PhaseCompleted
			res := base
			res.Kind, res.Phase, res.ToolCallID = event.KindToolResult, event.PhaseCompleted, ev.ToolCallID
			output := state.Get("output").String()
			isErr := status == "error"
			if isErr {
				res.Phase, output = event.PhaseFailed, state.Get("error").String()
			}
			res.ToolResult = &event.ToolResult{IsError: isErr, Output: textcut.Output(output), OutputBytes: len(output)}
			return []event.Event{ev, res}
		default:
			return []event.Event{unknown(refs, n.sessionID, "part/tool/"+status)}
		}
	case "step-finish":
		u := usageOf(p)
		ev := base
		ev.Kind, ev.Phase, ev.Usage = event.KindUsage, event.PhaseUpdated, &u
		return []event.Event{ev}
	}
	if _, ok := historyIgnoredParts[typ]; ok {
		return nil
	}
	return []event.Event{unknown(refs, n.sessionID, "part/"+typ)}
}

// End reports the synthesized result of the stored session.
func (n *HistoryNormalizer) End() []event.Event {
	if !n.sawLine {
		return nil
	}
	r := &event.Result{Subtype: "restored", IsError: n.lastFatal, Text: n.lastText}
	ph := event.PhaseCompleted
	switch {
	case n.lastFatal:
		ph = event.PhaseFailed
	case n.incomplete:
		r.Subtype, r.IsError, ph = "incomplete", true, event.PhaseFailed
	}
	return []event.Event{{Kind: event.KindResult, Phase: ph, SessionID: n.sessionID, Result: r}}
}

// Classify reports how Line treats a stored message line. The native type
// is the role and the part types it holds ("assistant/step-start+text+tool").
func (n *HistoryNormalizer) Classify(line []byte) event.Classification {
	if !gjson.ValidBytes(line) {
		return event.Classification{NativeType: census.Invalid, Disposition: event.DispositionUnknown}
	}
	v := gjson.ParseBytes(line)
	role := v.Get("info.role").String()
	if role == "" {
		return event.Classification{NativeType: census.NoType, Disposition: event.DispositionUnknown}
	}
	if role == "user" {
		return event.Classification{NativeType: "user", Disposition: event.DispositionIgnored,
			Reason: "the prompt; evcap normalizes the agent's output"}
	}
	if role != "assistant" {
		return event.Classification{NativeType: role, Disposition: event.DispositionUnknown}
	}
	var kinds []string
	disp := event.DispositionHandled
	for _, p := range v.Get("parts").Array() {
		t := p.Get("type").String()
		kinds = append(kinds, t)
		switch t {
		case "text", "reasoning", "tool", "step-finish":
		default:
			if _, ok := historyIgnoredParts[t]; !ok {
				disp = event.DispositionUnknown
			}
		}
	}
	return event.Classification{NativeType: "assistant/" + strings.Join(kinds, "+"), Disposition: disp}
}
