package gemini

import (
	"strings"

	"github.com/evcap/evcap/event"
	"github.com/evcap/evcap/internal/census"
	"github.com/evcap/evcap/internal/textcut"
	"github.com/tidwall/gjson"
)

// HistoryNormalizer turns the lines of a stored Gemini CLI session
// (~/.gemini/tmp/<project>/chats/session-*.jsonl) into the same normalized
// events as the stream-json normalizer.
//
// The file is a log of upserts: a metadata line, message records keyed by
// id, and {"$set": {...}} patches of the session's fields. The CLI writes
// a message record again each time the message grows (its tool calls, and
// their results, are added to the record of the model message that made
// them), so the last record with an id is the message. The normalizer holds
// the latest record of the current message and reports it when a record of
// another message (or the end) comes; its Cause lists every line that wrote it.
//
//	stored line                          normalized events
//	metadata (sessionId, startTime)      init completed (sessionId)
//	{"$set":{"messages":[…]}}            each message as a message record
//	{"$set":{other fields}}              none: ignored (session bookkeeping)
//	message type gemini                  thinking completed (the thoughts), text completed (content),
//	                                     usage updated (tokens), per tool call: tool completed (the
//	                                     stream normalizer's summaries) and, once it has one, tool_result
//	                                     (resultDisplay as the CLI showed it, else the function response)
//	message type user                    none: ignored (the prompt, and function responses the model
//	                                     message already holds)
//	message type error|warning           error failed (fatal for error)
//	message type info                    status updated (nativeType "message/info")
//	end of the stored session            result: completed with the last text, failed after an error,
//	                                     subtype "restored"
type HistoryNormalizer struct {
	sessionID string
	sawLine   bool
	held      gjson.Result
	heldRefs  []int64
	lastText  string
	lastFatal bool
}

// NewHistory returns a HistoryNormalizer at the start of a stored session.
func NewHistory() *HistoryNormalizer { return &HistoryNormalizer{} }

// Line normalizes one stored line; ref goes into the Cause of every event
// derived from it.
func (n *HistoryNormalizer) Line(ref int64, line []byte) []event.Event {
	if len(strings.TrimSpace(string(line))) == 0 {
		return nil
	}
	n.sawLine = true
	if !gjson.ValidBytes(line) {
		return []event.Event{{Kind: event.KindUnknown, Phase: event.PhaseUpdated, NativeType: census.Invalid,
			SessionID: n.sessionID, Cause: []int64{ref}}}
	}
	v := gjson.ParseBytes(line)
	switch historyType(v) {
	case "metadata":
		n.sessionID = v.Get("sessionId").String()
		return []event.Event{{Kind: event.KindInit, Phase: event.PhaseCompleted, SessionID: n.sessionID,
			Cause: []int64{ref}}}
	case "$set":
		var out []event.Event
		for _, m := range v.Get("$set.messages").Array() {
			out = append(out, n.record(ref, m)...)
		}
		return out
	case "message":
		return n.record(ref, v)
	}
	return []event.Event{{Kind: event.KindUnknown, Phase: event.PhaseUpdated, NativeType: historyType(v),
		SessionID: n.sessionID, Cause: []int64{ref}}}
}

// historyType names a stored line's shape.
func historyType(v gjson.Result) string {
	switch {
	case !v.IsObject():
		return census.Invalid
	case v.Get("$set").Exists():
		return "$set"
	case v.Get("id").Exists() && v.Get("type").Exists():
		return "message"
	case v.Get("sessionId").Exists() && v.Get("startTime").Exists():
		return "metadata"
	}
	return census.NoType
}

// record takes one message record: a new version of the held message
// replaces it, another message first reports the held one.
func (n *HistoryNormalizer) record(ref int64, m gjson.Result) []event.Event {
	var out []event.Event
	if n.held.Exists() && n.held.Get("id").String() != m.Get("id").String() {
		out = n.flush()
	}
	n.held = m
	if len(n.heldRefs) == 0 || n.heldRefs[len(n.heldRefs)-1] != ref {
		n.heldRefs = append(n.heldRefs, ref)
	}
	return out
}

// flush reports the held message.
func (n *HistoryNormalizer) flush() []event.Event {
	m, refs := n.held, n.heldRefs
	n.held, n.heldRefs = gjson.Result{}, nil
	if !m.Exists() {
		return nil
	}
	id := m.Get("id").String()
	base := event.Event{SessionID: n.sessionID, MessageID: id, Cause: refs}
	var out []event.Event
	switch m.Get("type").String() {
	case "gemini":
		var thoughts []string
		for _, t := range m.Get("thoughts").Array() {
			s := t.Get("description").String()
			if sub := t.Get("subject").String(); sub != "" {
				s = "**" + sub + "** " + s
			}
			thoughts = append(thoughts, s)
		}
		if th := strings.Join(thoughts, ""); th != "" {
			ev := base
			ev.Kind, ev.Phase, ev.PartID, ev.Text = event.KindThinking, event.PhaseCompleted, id+"/thoughts", th
			out = append(out, ev)
		}
		if text := contentString(m.Get("content")); text != "" {
			ev := base
			ev.Kind, ev.Phase, ev.PartID, ev.Text = event.KindText, event.PhaseCompleted, id, text
			out = append(out, ev)
			n.lastText, n.lastFatal = text, false
		}
		if t := m.Get("tokens"); t.Exists() {
			ev := base
			ev.Kind, ev.Phase = event.KindUsage, event.PhaseUpdated
			ev.Usage = &event.Usage{InputTokens: t.Get("input").Int(), OutputTokens: t.Get("output").Int(),
				CacheReadTokens: t.Get("cached").Int(), ReasoningTokens: t.Get("thoughts").Int()}
			out = append(out, ev)
		}
		for _, tc := range m.Get("toolCalls").Array() {
			out = append(out, n.toolCall(base, tc)...)
		}
	case "error", "warning":
		ev := base
		ev.Kind, ev.Phase = event.KindError, event.PhaseFailed
		fatal := m.Get("type").String() == "error"
		ev.Error = &event.Error{Type: m.Get("type").String(), Message: contentString(m.Get("content")), Fatal: fatal}
		n.lastFatal = n.lastFatal || fatal
		out = append(out, ev)
	case "info":
		ev := base
		ev.Kind, ev.Phase, ev.Status, ev.NativeType = event.KindStatus, event.PhaseUpdated,
			textcut.Summary(contentString(m.Get("content"))), "message/info"
		out = append(out, ev)
	case "user":
	default:
		ev := base
		ev.Kind, ev.Phase, ev.NativeType = event.KindUnknown, event.PhaseUpdated, "message/"+m.Get("type").String()
		out = append(out, ev)
	}
	return out
}

func (n *HistoryNormalizer) toolCall(base event.Event, tc gjson.Result) []event.Event {
	id := tc.Get("id").String()
	name, summary := summarize(tc.Get("name").String(), tc.Get("args"))
	call := base
	call.Kind, call.Phase, call.ToolCallID = event.KindTool, event.PhaseCompleted, id
	call.Tool = &event.Tool{Name: name, Summary: summary, Input: rawOf(tc.Get("args"))}
	out := []event.Event{call}
	status := tc.Get("status").String()
	switch status {
	case "success", "error", "cancelled":
	default:
		return out // still running when the session was stored
	}
	output := tc.Get("resultDisplay").String()
	if rd := tc.Get("resultDisplay"); rd.Type != gjson.String {
		var parts []string
		for _, r := range tc.Get("result").Array() {
			resp := r.Get("functionResponse.response")
			if o := resp.Get("output"); o.Exists() {
				parts = append(parts, o.String())
			} else if e := resp.Get("error"); e.Exists() {
				parts = append(parts, e.String())
			}
		}
		output = strings.Join(parts, "\n")
	}
	isErr := status != "success"
	ph := event.PhaseCompleted
	if isErr {
		ph = event.PhaseFailed
	}
	res := base
	res.Kind, res.Phase, res.ToolCallID = event.KindToolResult, ph, id
	res.ToolResult = &event.ToolResult{IsError: isErr, Output: textcut.Output(output), OutputBytes: len(output)}
	return append(out, res)
}

// contentString flattens message content: a string, or a list of parts of
// which the text parts count.
func contentString(c gjson.Result) string {
	if c.Type == gjson.String {
		return c.String()
	}
	var parts []string
	for _, p := range c.Array() {
		if t := p.Get("text"); t.Exists() {
			parts = append(parts, t.String())
		}
	}
	return strings.Join(parts, "")
}

// End reports the held message and a synthesized result.
func (n *HistoryNormalizer) End() []event.Event {
	out := n.flush()
	if !n.sawLine {
		return out
	}
	ph := event.PhaseCompleted
	if n.lastFatal {
		ph = event.PhaseFailed
	}
	return append(out, event.Event{Kind: event.KindResult, Phase: ph, SessionID: n.sessionID,
		Result: &event.Result{Subtype: "restored", IsError: n.lastFatal, Text: n.lastText}})
}

// Classify reports how Line treats a stored line.
func (n *HistoryNormalizer) Classify(line []byte) event.Classification {
	if !gjson.ValidBytes(line) {
		return event.Classification{NativeType: census.Invalid, Disposition: event.DispositionUnknown}
	}
	v := gjson.ParseBytes(line)
	nt := historyType(v)
	switch nt {
	case "metadata":
		return event.Classification{NativeType: nt, Disposition: event.DispositionHandled}
	case "$set":
		if v.Get("$set.messages").Exists() {
			return event.Classification{NativeType: "$set/messages", Disposition: event.DispositionHandled}
		}
		return event.Classification{NativeType: nt, Disposition: event.DispositionIgnored,
			Reason: "session bookkeeping (lastUpdated, summary)"}
	case "message":
		t := "message/" + v.Get("type").String()
		switch v.Get("type").String() {
		case "gemini", "error", "warning", "info":
			return event.Classification{NativeType: t, Disposition: event.DispositionHandled}
		case "user":
			return event.Classification{NativeType: t, Disposition: event.DispositionIgnored,
				Reason: "the prompt, and function responses the model message holds too"}
		}
		return event.Classification{NativeType: t, Disposition: event.DispositionUnknown}
	}
	return event.Classification{NativeType: nt, Disposition: event.DispositionUnknown}
}
