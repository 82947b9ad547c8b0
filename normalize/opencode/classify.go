package opencode

import (
	"github.com/evcap/evcap/event"
	"github.com/evcap/evcap/internal/census"
	"github.com/tidwall/gjson"
)

// Classify reports how Line treats line, for the drift census. It reads
// the normalizer's state (which messages are the user's) but never changes
// it.
func (n *Normalizer) Classify(line []byte) event.Classification {
	payload, kind := sseFrame(trimCR(line))
	switch kind {
	case frameBlank:
		return event.Classification{NativeType: "sse/blank", Disposition: event.DispositionIgnored,
			Reason: "SSE event separator"}
	case frameSkip:
		return event.Classification{NativeType: "sse/field", Disposition: event.DispositionIgnored,
			Reason: "SSE event:/id:/retry:/comment line; only data lines carry events"}
	}
	if !gjson.ValidBytes(payload) {
		if kind == frameData {
			return event.Classification{NativeType: "sse/data-fragment", Disposition: event.DispositionHandled,
				Reason: "part of a multi-line SSE data field, handled at the blank line"}
		}
		return event.Classification{NativeType: census.Invalid, Disposition: event.DispositionUnknown}
	}
	v := gjson.ParseBytes(payload)
	if v.Get("properties").IsObject() {
		return n.classifyBus(v)
	}
	return classifyRun(v)
}

func classifyRun(v gjson.Result) event.Classification {
	c := event.Classification{NativeType: runType(v), Disposition: event.DispositionHandled}
	typ := v.Get("type").String()
	switch typ {
	case "step_start":
		c.Disposition, c.Reason = event.DispositionIgnored, "marks a model call; the message id is on every part"
	case "text", "reasoning", "tool_use", "step_finish", "error", "done":
	default:
		c.Disposition = event.DispositionUnknown
		return c
	}
	var unk []string
	unk = unknownKeys(unk, "", v, runTop[typ])
	part := v.Get("part")
	unk = unknownKeys(unk, "part.", part, partFields[part.Get("type").String()])
	if st := part.Get("state"); st.Exists() {
		unk = unknownKeys(unk, "part.state.", st, stateFields[st.Get("status").String()])
	}
	if e := v.Get("error"); e.Exists() {
		unk = unknownKeys(unk, "error.", e, errorFields)
		unk = unknownKeys(unk, "error.data.", e.Get("data"), errorDataFields)
	}
	c.UnknownFields = unk
	return c
}

func (n *Normalizer) classifyBus(v gjson.Result) event.Classification {
	typ := v.Get("type").String()
	p := v.Get("properties")
	c := event.Classification{NativeType: busType(v), Disposition: event.DispositionHandled}
	switch typ {
	case "message.updated":
		c.Disposition, c.Reason = event.DispositionIgnored, "no event; remembers which message ids are the user's"
	case "message.part.updated":
		part := p.Get("part")
		switch part.Get("type").String() {
		case "text", "reasoning":
			if n.userMsgs[part.Get("messageID").String()] {
				c.Disposition, c.Reason = event.DispositionIgnored, "echo of the user's prompt"
			}
		case "tool", "step-finish":
		case "step-start":
			c.Disposition, c.Reason = event.DispositionIgnored, "marks a model call; the message id is on every part"
		default:
			c.Disposition = event.DispositionUnknown
		}
	case "message.part.delta":
		if n.userMsgs[p.Get("messageID").String()] {
			c.Disposition, c.Reason = event.DispositionIgnored, "echo of the user's prompt"
		}
	case "session.status":
		switch p.Get("status.type").String() {
		case "busy", "idle", "retry":
		default:
			c.Disposition = event.DispositionUnknown
		}
	case "session.error", "session.created", "permission.asked", "permission.updated", "permission.replied",
		"permission.v2.asked", "permission.v2.replied":
	default:
		if r := busIgnoreReason(typ); r != "" {
			c.Disposition, c.Reason = event.DispositionIgnored, r
		} else {
			c.Disposition = event.DispositionUnknown
		}
	}
	if c.Disposition == event.DispositionUnknown {
		return c
	}
	var unk []string
	unk = unknownKeys(unk, "", v, busTop)
	if known, ok := busProps[typ]; ok {
		unk = unknownKeys(unk, "properties.", p, known)
	}
	if part := p.Get("part"); part.Exists() {
		unk = unknownKeys(unk, "properties.part.", part, partFields[part.Get("type").String()])
		if st := part.Get("state"); st.Exists() {
			unk = unknownKeys(unk, "properties.part.state.", st, stateFields[st.Get("status").String()])
		}
	}
	if st := p.Get("status"); typ == "session.status" && st.IsObject() {
		unk = unknownKeys(unk, "properties.status.", st, statusFields[st.Get("type").String()])
	}
	if info := p.Get("info"); typ == "message.updated" {
		unk = unknownKeys(unk, "properties.info.", info, infoFields[info.Get("role").String()])
	}
	c.UnknownFields = unk
	return c
}

// unknownKeys appends prefix+key, sorted, for every key of obj not in
// known. A nil known list means "no list for this shape": nothing is
// reported.
func unknownKeys(dst []string, prefix string, obj gjson.Result, known []string) []string {
	if known == nil {
		return dst
	}
	return census.AppendSorted(dst, prefix, obj, known)
}

func trimCR(b []byte) []byte {
	if len(b) > 0 && b[len(b)-1] == '\r' {
		return b[:len(b)-1]
	}
	return b
}
