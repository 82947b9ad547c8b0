package codex

import (
	"slices"
	"strings"

	"github.com/evcap/evcap/event"
	"github.com/evcap/evcap/internal/census"
	"github.com/tidwall/gjson"
)

// typeField is known on every object: it is what nativeType reads.
var typeField = []string{"type"}

// nativeType names a line's type path: the event type, plus the item type
// for item events ("item.completed/command_execution"). Lines of the
// legacy protocol that codex exec printed before the thread/item events
// ({"id":"0","msg":{"type":"agent_message",…}}) are named
// "legacy/<msg.type>".
func nativeType(v gjson.Result) string {
	typ := v.Get("type").String()
	switch {
	case strings.HasPrefix(typ, "item.") && v.Get("item").Exists():
		return typ + "/" + v.Get("item.type").String()
	case typ == "" && v.Get("msg").IsObject() && v.Get("id").Exists():
		return "legacy/" + v.Get("msg.type").String()
	case typ == "":
		return census.NoType
	}
	return typ
}

// handledTypes lists the native types Line maps to events.
var handledTypes = map[string]bool{
	"thread.started": true, "turn.started": true, "turn.completed": true, "turn.failed": true, "error": true,
}

// handledItems lists the item types Line maps, whatever the item phase.
var handledItems = []string{"agent_message", "reasoning", "command_execution", "file_change",
	"mcp_tool_call", "web_search", "todo_list", "error"}

// keptUnknown lists native types Line deliberately passes on as unknown
// events, and why. Classify reports them as unknown too: they are types
// evcap has no normalized form for yet.
var keptUnknown = map[string]string{
	"item.plan.delta":    "plan mode text; no normalized form yet",
	"request_user_input": "interactive question; exec --json runs unattended",
}

// knownFields lists, per native type, the top-level fields (and, for item
// events, the item's fields as "item.<name>") seen in the corpus (codex-cli
// 0.171.0) or declared in codex-rs/exec/src/exec_events.rs.
var knownFields = map[string][]string{
	"thread.started":     {"thread_id"},
	"turn.started":       nil,
	"turn.completed":     {"usage"},
	"turn.failed":        {"error"},
	"error":              {"message"},
	"item.plan.delta":    {"item_id", "delta"},
	"request_user_input": {"id", "call_id", "questions"},
}

// knownItemFields lists the fields of each item type.
var knownItemFields = map[string][]string{
	"agent_message":     {"text"},
	"reasoning":         {"text"},
	"command_execution": {"command", "aggregated_output", "exit_code", "status"},
	"file_change":       {"changes", "status"},
	"mcp_tool_call":     {"server", "tool", "arguments", "result", "error", "status"},
	"web_search":        {"query", "action"},
	"todo_list":         {"items"},
	"error":             {"message"},
}

// Classify reports how Line treats line, for the drift census. It reads
// no state and changes none.
func (n *Normalizer) Classify(line []byte) event.Classification {
	if len(strings.TrimSpace(string(line))) == 0 {
		return event.Classification{NativeType: "(blank)", Disposition: event.DispositionIgnored, Reason: "blank line"}
	}
	if !gjson.ValidBytes(line) {
		return event.Classification{NativeType: census.Invalid, Disposition: event.DispositionUnknown}
	}
	v := gjson.ParseBytes(line)
	if !v.IsObject() {
		return event.Classification{NativeType: census.Invalid, Disposition: event.DispositionUnknown}
	}
	nt := nativeType(v)
	c := event.Classification{NativeType: nt, Disposition: event.DispositionUnknown, Reason: keptUnknown[nt]}
	if strings.HasPrefix(nt, "legacy/") {
		c.Reason = "legacy {id,msg} protocol of codex exec before the thread/item events (openai/codex#4525)"
		return c
	}
	typ := v.Get("type").String()
	itemType := v.Get("item.type").String()
	var unknownF []string
	switch {
	case handledTypes[nt]:
		c.Disposition = event.DispositionHandled
		unknownF = census.Extra(v, "", typeField, knownFields[nt])
	case strings.HasPrefix(typ, "item.") && typ != "item.plan.delta" && slices.Contains(handledItems, itemType):
		c.Disposition = event.DispositionHandled
		unknownF = census.Extra(v, "", typeField, []string{"item"})
		unknownF = append(unknownF, census.Extra(v.Get("item"), "item.", typeField, []string{"id"}, knownItemFields[itemType])...)
	}
	c.UnknownFields = unknownF
	return c
}
