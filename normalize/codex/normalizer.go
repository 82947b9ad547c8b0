package codex

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/evcap/evcap/event"
	"github.com/evcap/evcap/internal/census"
	"github.com/evcap/evcap/internal/textcut"
	"github.com/tidwall/gjson"
)

// Normalizer turns codex exec --json lines into normalized events. It keeps
// the state that spans lines: whether a turn is open, and which tool items
// were already reported as calls. It does no I/O. Use New.
type Normalizer struct {
	sawLine     bool
	sawTerminal bool // a turn.completed or turn.failed
	turnOpen    bool
	// called holds the ids of tool items whose call event was emitted (at
	// item.started), so item.completed only adds the result.
	called map[string]bool
}

// New returns a Normalizer at the start of a stream.
func New() *Normalizer {
	return &Normalizer{called: map[string]bool{}}
}

// Line normalizes one native line (without its newline). ref goes into the
// Cause of every event derived from the line. Lines that are not JSON give
// one unknown event; blank lines give nothing.
func (n *Normalizer) Line(ref int64, line []byte) []event.Event {
	if len(strings.TrimSpace(string(line))) == 0 {
		return nil
	}
	n.sawLine = true
	if !gjson.ValidBytes(line) {
		return []event.Event{unknown(ref, census.Invalid)}
	}
	v := gjson.ParseBytes(line)
	if !v.IsObject() {
		return []event.Event{unknown(ref, census.Invalid)}
	}
	cause := []int64{ref}
	switch v.Get("type").String() {
	case "thread.started":
		return []event.Event{{Kind: event.KindInit, Phase: event.PhaseCompleted,
			SessionID: v.Get("thread_id").String(), Cause: cause}}
	case "turn.started":
		n.turnOpen = true
		return []event.Event{{Kind: event.KindStatus, Phase: event.PhaseUpdated, Status: "turn_started",
			NativeType: "turn.started", Cause: cause}}
	case "turn.completed":
		n.turnOpen, n.sawTerminal = false, true
		u := v.Get("usage")
		return []event.Event{
			{Kind: event.KindUsage, Phase: event.PhaseUpdated, Cause: cause, Usage: &event.Usage{
				InputTokens:      u.Get("input_tokens").Int(),
				OutputTokens:     u.Get("output_tokens").Int(),
				CacheReadTokens:  u.Get("cached_input_tokens").Int(),
				CacheWriteTokens: u.Get("cache_write_input_tokens").Int(),
				ReasoningTokens:  u.Get("reasoning_output_tokens").Int(),
				Cumulative:       true,
			}},
			{Kind: event.KindResult, Phase: event.PhaseCompleted, Cause: cause,
				Result: &event.Result{Subtype: "success"}},
		}
	case "turn.failed":
		n.turnOpen, n.sawTerminal = false, true
		msg := v.Get("error.message").String()
		return []event.Event{
			{Kind: event.KindError, Phase: event.PhaseFailed, Cause: cause,
				Error: &event.Error{Type: "turn_failed", Message: msg, Fatal: true}},
			{Kind: event.KindResult, Phase: event.PhaseFailed, Cause: cause,
				Result: &event.Result{Subtype: "error", IsError: true, Text: msg}},
		}
	case "error":
		msg := v.Get("message").String()
		if r, ok := parseRetry(msg); ok {
			return []event.Event{{Kind: event.KindRetry, Phase: event.PhaseUpdated, Retry: &r, Cause: cause}}
		}
		return []event.Event{{Kind: event.KindError, Phase: event.PhaseFailed, Cause: cause,
			Error: &event.Error{Type: "stream_error", Message: msg}}}
	case "item.started", "item.updated", "item.completed":
		return n.item(ref, v)
	}
	return []event.Event{unknown(ref, nativeType(v))}
}

// End reports the end of the stream: a turn that neither completed nor
// failed (an interrupted codex), or a stream that never finished any turn,
// yields an explicit incomplete result.
func (n *Normalizer) End() []event.Event {
	if n.turnOpen || (n.sawLine && !n.sawTerminal) {
		n.turnOpen, n.sawTerminal = false, true
		return []event.Event{{Kind: event.KindResult, Phase: event.PhaseFailed,
			Result: &event.Result{Subtype: "incomplete", IsError: true}}}
	}
	return nil
}

// retryRE matches codex's stream retry notice, "Reconnecting... 1/2 (why)".
var retryRE = regexp.MustCompile(`^Reconnecting\.\.\.\s*(\d+)/(\d+)\s*(?:\((.*)\))?$`)

// statusRE finds an HTTP status in a retry reason ("last status: 429",
// "unexpected status 401 Unauthorized").
var statusRE = regexp.MustCompile(`status:? (\d{3})\b`)

func parseRetry(msg string) (event.Retry, bool) {
	m := retryRE.FindStringSubmatch(msg)
	if m == nil {
		return event.Retry{}, false
	}
	r := event.Retry{Error: m[3]}
	r.Attempt, _ = strconv.Atoi(m[1])
	r.MaxRetries, _ = strconv.Atoi(m[2])
	if s := statusRE.FindStringSubmatch(m[3]); s != nil {
		r.Status, _ = strconv.Atoi(s[1])
	}
	return r, true
}

func (n *Normalizer) item(ref int64, v gjson.Result) []event.Event {
	phase := strings.TrimPrefix(v.Get("type").String(), "item.")
	it := v.Get("item")
	id := it.Get("id").String()
	cause := []int64{ref}
	switch it.Get("type").String() {
	case "agent_message", "reasoning":
		kind := event.KindText
		if it.Get("type").String() == "reasoning" {
			kind = event.KindThinking
		}
		text := it.Get("text").String()
		switch {
		case phase == "started":
			return []event.Event{{Kind: kind, Phase: event.PhaseStarted, PartID: id, Cause: cause}}
		case phase == "completed" && text != "":
			return []event.Event{{Kind: kind, Phase: event.PhaseCompleted, PartID: id, Text: text, Cause: cause}}
		}
		return nil // partial snapshots and empty reasoning carry nothing new
	case "command_execution", "file_change", "mcp_tool_call", "web_search":
		return n.toolItem(phase, id, it, cause)
	case "todo_list":
		done, all := 0, 0
		for _, t := range it.Get("items").Array() {
			all++
			if t.Get("completed").Bool() {
				done++
			}
		}
		return []event.Event{{Kind: event.KindStatus, Phase: event.PhaseUpdated, PartID: id,
			Status: fmt.Sprintf("todo %d/%d", done, all), NativeType: "item." + phase + "/todo_list", Cause: cause}}
	case "error":
		return []event.Event{{Kind: event.KindError, Phase: event.PhaseFailed, PartID: id, Cause: cause,
			Error: &event.Error{Type: "item_error", Message: it.Get("message").String()}}}
	}
	return []event.Event{unknown(ref, nativeType(v))}
}

// toolItem reports a tool call once, as soon as its arguments are known
// (item.started, or item.completed for items that never start), and its
// result at item.completed.
func (n *Normalizer) toolItem(phase, id string, it gjson.Result, cause []int64) []event.Event {
	var out []event.Event
	if !n.called[id] && phase != "" {
		n.called[id] = true
		t := toolOf(it)
		out = append(out, event.Event{Kind: event.KindTool, Phase: event.PhaseCompleted, ToolCallID: id,
			Tool: &t, Cause: cause})
	}
	if phase != "completed" {
		return out
	}
	status := it.Get("status").String()
	isErr := status == "failed" || status == "declined"
	var output string
	switch it.Get("type").String() {
	case "command_execution":
		output = it.Get("aggregated_output").String()
		if c := it.Get("exit_code"); c.Type == gjson.Number && c.Int() != 0 {
			isErr = true
			if output == "" {
				output = "exit code " + c.Raw
			}
		}
	case "file_change":
		var lines []string
		for _, c := range it.Get("changes").Array() {
			lines = append(lines, c.Get("kind").String()+" "+c.Get("path").String())
		}
		output = strings.Join(lines, "\n")
	case "mcp_tool_call":
		if e := it.Get("error.message"); e.Exists() {
			isErr, output = true, e.String()
		} else {
			var parts []string
			for _, c := range it.Get("result.content").Array() {
				if c.Get("type").String() == "text" {
					parts = append(parts, c.Get("text").String())
				}
			}
			output = strings.Join(parts, "\n")
		}
	}
	cut, size := textcut.Output(output), len(output)
	ph := event.PhaseCompleted
	if isErr {
		ph = event.PhaseFailed
	}
	return append(out, event.Event{Kind: event.KindToolResult, Phase: ph, ToolCallID: id, Cause: cause,
		ToolResult: &event.ToolResult{IsError: isErr, Output: cut, OutputBytes: size}})
}

// toolOf describes a tool item as a call: a name, a safe summary and the
// arguments. Codex reports shell commands wrapped in a login shell; the
// summary shows the command the model asked for.
func toolOf(it gjson.Result) event.Tool {
	switch it.Get("type").String() {
	case "command_execution":
		cmd := it.Get("command").String()
		in, _ := json.Marshal(map[string]string{"command": cmd})
		return event.Tool{Name: "Bash", Summary: textcut.Summary(unwrapCommand(cmd)), Input: in}
	case "file_change":
		var paths []string
		for _, c := range it.Get("changes").Array() {
			paths = append(paths, c.Get("path").String())
		}
		return event.Tool{Name: "file_change", Summary: textcut.Summary(strings.Join(paths, ", ")),
			Input: json.RawMessage(it.Get("changes").Raw)}
	case "mcp_tool_call":
		// MCP arguments are arbitrary, so no summary.
		t := event.Tool{Name: "mcp__" + it.Get("server").String() + "__" + it.Get("tool").String()}
		if a := it.Get("arguments"); a.Exists() {
			t.Input = json.RawMessage(a.Raw)
		}
		return t
	case "web_search":
		q := it.Get("query").String()
		in, _ := json.Marshal(map[string]string{"query": q})
		return event.Tool{Name: "web_search", Summary: textcut.Summary(q), Input: in}
	}
	return event.Tool{Name: "tool"}
}

func unknown(ref int64, native string) event.Event {
	return event.Event{Kind: event.KindUnknown, Phase: event.PhaseUpdated, NativeType: native, Cause: []int64{ref}}
}
