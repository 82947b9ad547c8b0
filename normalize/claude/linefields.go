package claude

import (
	"github.com/evcap/evcap/internal/jsonpick"
	"github.com/tidwall/gjson"
)

// Which members of Claude's hot lines are read, in one pass each, by pick
// (jsonpick.Pick), and the index of each in Pick's result.

var (
	lineKeys = []string{"type", "parent_tool_use_id", "subagent_type", "event", "message", "error"}
	// eventKeys are those of a stream_event's event.
	eventKeys = []string{"type", "index", "delta", "content_block", "message", "usage"}
	// deltaKeys are those of a content_block_delta's delta.
	deltaKeys = []string{"type", "text", "thinking", "partial_json"}
	// messageKeys are those of an assistant or user line's message.
	messageKeys = []string{"id", "model", "content", "usage"}
	// blockKeys are those of one content block of an assistant message.
	blockKeys = []string{"type", "text", "thinking", "name", "id", "input"}
	// resultKeys are those of a user message's tool_result block, read
	// raw (jsonpick.PickRaw): its content only goes to resultText.
	resultKeys = []string{"type", "is_error", "tool_use_id", "content"}
)

const (
	lType = iota
	lParent
	lSubagentType
	lEvent
	lMessage
	lError
	lineFields
)

const (
	eType = iota
	eIndex
	eDelta
	eContentBlock
	eMessage
	eUsage
	eventFields
)

const (
	dType = iota
	dText
	dThinking
	dPartialJSON
	deltaFields
)

const (
	mID = iota
	mModel
	mContent
	mUsage
	messageFields
)

const (
	bType = iota
	bText
	bThinking
	bName
	bID
	bInput
	blockFields
)

const (
	rType = iota
	rIsError
	rToolUseID
	rContent
	resultRawFields
)

// linePick is what one walk of a line reads: lineKeys, the event's
// eventKeys and its delta's deltaKeys, and the message's messageKeys.
func linePick() *jsonpick.Nested {
	p := jsonpick.NewNested(lineKeys)
	ev := jsonpick.NewNested(eventKeys)
	ev.Sub[eDelta] = jsonpick.NewNested(deltaKeys)
	p.Sub[lEvent] = ev
	p.Sub[lMessage] = jsonpick.NewNested(messageKeys)
	p.Enough = func() bool { return pickedEnough((*[lineFields]gjson.Result)(p.Out)) }
	return p
}

// pickedEnough reports whether the members of a line read so far (f) are
// all its normalizing needs, so that the walk can stop: the type, the
// member that type reads (event, message), the parent agent and, under a
// subagent, its name. An assistant line's error may come anywhere, so
// its walk goes to the end. Claude Code writes type, then event or
// message, then parent_tool_use_id: a tool result's line is not read
// past it, where its output comes a second time (tool_use_result).
func pickedEnough(f *[lineFields]gjson.Result) bool {
	if !f[lType].Exists() || !f[lParent].Exists() || f[lParent].String() != "" && !f[lSubagentType].Exists() {
		return false
	}
	switch f[lType].String() {
	case "assistant":
		return false
	case "stream_event":
		return f[lEvent].Exists()
	case "user":
		return f[lMessage].Exists()
	}
	return true
}
