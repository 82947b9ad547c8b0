package codex

import (
	"encoding/json"
	"fmt"
	"github.com/evcap/evcap/internal/jsonpick"
	"strings"

	"github.com/evcap/evcap/event"
	"github.com/evcap/evcap/internal/textcut"
	"github.com/tidwall/gjson"
)

// itemType names an item, given its type and item_type members, in the
// vocabulary of the thread protocol: the item_type variant of --experimental-json (codex 0.42–0.43)
// said "item_type" and called an agent message "assistant_message".
func itemType(typ, itemType gjson.Result) string {
	if typ.Exists() {
		return typ.String()
	}
	t := itemType.String()
	if t == "assistant_message" {
		return "agent_message"
	}
	return t
}

// messagePhase reads agent_message.phase; values codex may add later are
// kept out of the normalized field rather than guessed at.
func messagePhase(it gjson.Result) event.MessagePhase { return phaseOf(it.Get("phase")) }

// phaseOf is messagePhase given the phase member.
func phaseOf(phase gjson.Result) event.MessagePhase {
	switch p := event.MessagePhase(phase.String()); p {
	case event.MessagePhaseCommentary, event.MessagePhaseFinalAnswer:
		return p
	}
	return ""
}

// item normalizes an item.* line v, whose top-level fields lf holds, and
// ip what its item holds.
func (n *Normalizer) item(ref int64, v gjson.Result, lf *lineFields, ip *itemPick) []event.Event {
	phase := strings.TrimPrefix(lf[lType].String(), "item.")
	it := lf[lItem]
	f := &ip.f
	id := f[iID].String()
	cause := []int64{ref}
	switch typ := itemType(f[iType], f[iItemType]); typ {
	case "agent_message", "reasoning", "plan":
		kind := event.KindText
		if typ == "reasoning" {
			kind = event.KindThinking
		}
		text := f[iText].String()
		mp := phaseOf(f[iPhase])
		switch {
		case phase == "started":
			return []event.Event{{Kind: kind, Phase: event.PhaseStarted, PartID: id, MessagePhase: mp, Cause: cause}}
		case phase == "completed" && text != "":
			if typ == "agent_message" && mp == event.MessagePhaseFinalAnswer {
				n.finalAnswer = append(n.finalAnswer, n.keeper.Keep(text))
			}
			e := event.Event{Kind: kind, Phase: event.PhaseCompleted, PartID: id, Text: text, MessagePhase: mp, Cause: cause}
			if typ == "plan" {
				e.NativeType = "item.completed/plan"
			}
			return []event.Event{e}
		}
		return nil // partial snapshots and empty reasoning carry nothing new
	case "command_execution", "file_change", "mcp_tool_call", "web_search":
		return n.toolItem(phase, id, it, ip, cause)
	case "collab_tool_call":
		return n.collabItem(phase, id, it, cause)
	case "todo_list":
		done, all := 0, 0
		for _, t := range f[iItems].Array() {
			all++
			if t.Get("completed").Bool() {
				done++
			}
		}
		return []event.Event{{Kind: event.KindStatus, Phase: event.PhaseUpdated, PartID: id,
			Status: fmt.Sprintf("todo %d/%d", done, all), NativeType: "item." + phase + "/todo_list", Cause: cause}}
	case "error":
		return []event.Event{{Kind: event.KindError, Phase: event.PhaseFailed, PartID: id, Cause: cause,
			Error: &event.Error{Type: "item_error", Message: f[iMessage].String()}}}
	}
	return []event.Event{unknown(ref, nativeType(v))}
}

// toolItem reports a tool call once, as soon as its arguments are known
// (item.started, or item.completed for items that never start), and its
// result at item.completed.
func (n *Normalizer) toolItem(phase, id string, it gjson.Result, ip *itemPick, cause []int64) []event.Event {
	f := &ip.f
	var out0 []event.Event
	if !n.called[id] && phase != "" {
		n.called[n.keeper.Keep(id)] = true
		t := toolOf(f)
		out0 = append(out0, event.Event{Kind: event.KindTool, Phase: event.PhaseCompleted, ToolCallID: id,
			Tool: &t, Cause: cause})
	}
	if phase != "completed" {
		return out0
	}
	status := f[iStatus].String()
	isErr := status == "failed" || status == "declined"
	var output string
	switch itemType(f[iType], f[iItemType]) {
	case "command_execution":
		// aggregated_output, the largest value of most items, is decoded
		// only as far as the event keeps it.
		out, size := jsonpick.CutRaw(ip.output)
		if c := f[iExitCode]; c.Type == gjson.Number && c.Int() != 0 {
			isErr = true
			if size == 0 {
				output = "exit code " + c.Raw
				break
			}
		}
		return append(out0, cutResult(id, isErr, out, size, cause))
	case "file_change":
		var lines []string
		for _, c := range f[iChanges].Array() {
			lines = append(lines, c.Get("kind").String()+" "+c.Get("path").String())
		}
		output = strings.Join(lines, "\n")
	case "mcp_tool_call":
		if e := inFirst(f[iError], it, "message", "error.message"); e.Exists() {
			isErr, output = true, e.String()
		} else {
			output = mcpText(inFirst(f[iResult], it, "content", "result.content"))
		}
	}
	return append(out0, toolResult(id, isErr, output, cause))
}

// toolResult is the tool_result event of call id, with the output cut for
// display and its full length kept.
func toolResult(id string, isErr bool, output string, cause []int64) event.Event {
	return cutResult(id, isErr, textcut.Output(output), len(output), cause)
}

// cutResult is toolResult given the output already cut and the length of
// the whole.
func cutResult(id string, isErr bool, output string, size int, cause []int64) event.Event {
	ph := event.PhaseCompleted
	if isErr {
		ph = event.PhaseFailed
	}
	return event.Event{Kind: event.KindToolResult, Phase: ph, ToolCallID: id, Cause: cause,
		ToolResult: &event.ToolResult{IsError: isErr, Output: output, OutputBytes: size}}
}

// mcpText joins the text blocks of an MCP tool result's content.
func mcpText(content gjson.Result) string {
	var parts []string
	jsonpick.Each(content, func(c gjson.Result) {
		if c.Get("type").String() == "text" {
			parts = append(parts, c.Get("text").String())
		}
	})
	return strings.Join(parts, "\n")
}

// toolOf describes a tool item as a call: a name, a safe summary and the
// arguments. Codex reports shell commands wrapped in a login shell; the
// summary shows the command the model asked for.
func toolOf(f *itemFields) event.Tool {
	switch itemType(f[iType], f[iItemType]) {
	case "command_execution":
		return bashTool(f[iCommand].String())
	case "file_change":
		var paths []string
		for _, c := range f[iChanges].Array() {
			paths = append(paths, c.Get("path").String())
		}
		return event.Tool{Name: "file_change", Summary: textcut.Summary(strings.Join(paths, ", ")),
			Input: json.RawMessage(f[iChanges].Raw)}
	case "mcp_tool_call":
		return mcpTool(f[iServer].String(), f[iTool].String(), f[iArguments])
	case "web_search":
		return webSearchTool(f[iQuery].String())
	}
	return event.Tool{Name: "tool"}
}

// bashTool is the call of a shell command as codex reports it (one string,
// in its login-shell wrapper).
func bashTool(cmd string) event.Tool {
	in, _ := json.Marshal(map[string]string{"command": cmd})
	return event.Tool{Name: "Bash", Summary: textcut.Summary(unwrapCommand(cmd)), Input: in}
}

// mcpTool is the call of an MCP tool. MCP arguments are arbitrary, so
// there is no summary.
func mcpTool(server, tool string, args gjson.Result) event.Tool {
	t := event.Tool{Name: "mcp__" + server + "__" + tool}
	if args.Exists() && args.Type != gjson.Null {
		t.Input = json.RawMessage(args.Raw)
	}
	return t
}

func webSearchTool(q string) event.Tool {
	in, _ := json.Marshal(map[string]string{"query": q})
	return event.Tool{Name: "web_search", Summary: textcut.Summary(q), Input: in}
}
