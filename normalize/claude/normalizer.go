package claude

import (
	"bytes"
	"encoding/json"
	"github.com/evcap/evcap/internal/jsonpick"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/evcap/evcap/event"
	"github.com/evcap/evcap/internal/census"
	"github.com/evcap/evcap/internal/textcut"
	"github.com/tidwall/gjson"
)

// Normalizer turns Claude Code stream-json lines into normalized events. It
// keeps the state that spans lines: the open content blocks of a streamed
// message and which messages arrived as stream events. It does no I/O.
// The zero value is not ready; use New.
type Normalizer struct {
	sawLine   bool
	sawResult bool
	// sawFatal is set once a fatal error event was emitted in this turn, so
	// that the error result that follows does not report it twice.
	sawFatal bool

	// streamed holds the ids of messages announced by a message_start:
	// their assistant lines repeat what the deltas already said.
	streamed map[string]bool
	// streams holds the message being streamed per agent: the main agent
	// under "" and each subagent under its parent tool call id, since a
	// subagent's stream events may interleave with the main agent's.
	streams map[string]*stream
	// cur is the stream of the line being normalized.
	cur *stream

	// agents knows, per tool call that started a subagent, who the
	// subagent is (from the Task/Agent tool input and system/task_*);
	// taskTool maps a task_id back to that tool call id.
	agents   map[string]*event.Agent
	taskTool map[string]string
	// permTool maps a can_use_tool request id to its tool call and tool.
	perms map[string]permRequest

	// parts counts the content blocks seen per message in assistant lines
	// (one block per line), to give each a part id like a stream index.
	parts   map[string]int
	usageOf map[string]bool

	// cumulative is Options.CumulativeDeltas.
	cumulative bool

	// freeBlocks holds closed blocks for reuse (newBlock).
	freeBlocks []*block
	// slab holds the delta events and their causes: own, or the
	// caller's (UseSlab).
	slab    *event.Slab
	ownSlab event.Slab
	// pick reads a line's members, and those of its event, the event's
	// delta and its message, in one walk (see linePick); its results hold
	// for the line being normalized.
	pick *jsonpick.Nested

	// keeper holds the line being normalized when the caller did not
	// give it away (Line, LineValid): the line is read in place, not
	// copied, and the strings of it that the state keeps (keep) and the
	// events carry (event.Detach) are copied instead, a few bytes where a
	// copy of the line was hundreds.
	keeper jsonpick.Keeper
}

// Options change how a Normalizer reads its stream. The zero value gives
// the behaviour of New.
type Options struct {
	// CumulativeDeltas takes the text of every text_delta and
	// thinking_delta as the whole text of its block so far (a cumulative
	// snapshot) rather than the next piece. Some Claude-compatible
	// gateways and third-party models send deltas that way; read as
	// pieces, every snapshot repeats the text before it. With this on, a
	// delta event carries only what the snapshot adds to the block's text
	// (no event when it adds nothing, or when the snapshot is empty).
	// A snapshot that does not start with the block's text so far (the
	// provider rewrote earlier text) becomes the block's text: its delta
	// event carries it whole, right after a status event with Status
	// StatusSnapshotRewritten, so the rewrite is on record; the completed
	// event then carries the last snapshot, which no longer equals the
	// concatenated deltas. input_json_delta is not affected.
	//
	// Snapshots cannot be told from pieces safely (a piece may happen to
	// begin with the text before it), so this is never guessed: turn it on
	// only for a provider known to send snapshots.
	CumulativeDeltas bool
}

// StatusSnapshotRewritten is the Status of the event reported, with
// Options.CumulativeDeltas, when a snapshot does not extend the text its
// block had so far.
const StatusSnapshotRewritten = "snapshot_rewritten"

// stream is the message being streamed by one agent.
type stream struct {
	msgID    string
	msgUsage event.Usage
	blocks   map[int64]*block
}

// block is one content block of a streamed message, open between its
// content_block_start and content_block_stop.
type block struct {
	kind event.Kind // text, thinking or tool; "" for blocks we pass over
	id   string     // tool_use id
	name string     // tool name as the provider gives it
	// text gathers the pieces; the completed event gets a copy of its
	// final length, and text and cause are reused by a later block
	// (newBlock): growing a fresh buffer per block was a third of what
	// evcap normalize allocated, and each collection of it costs the
	// pipeline more than the copy.
	text  []byte
	cause []int64
}

// maxFreeBlocks bounds the closed blocks kept for reuse, and
// maxKeptText the text buffer one may keep.
const (
	maxFreeBlocks = 8
	maxKeptText   = 64 << 10
)

// newBlock returns an empty block, a closed one's when there is one.
func (n *Normalizer) newBlock(kind event.Kind) *block {
	if k := len(n.freeBlocks); k > 0 {
		b := n.freeBlocks[k-1]
		n.freeBlocks = n.freeBlocks[:k-1]
		*b = block{kind: kind, text: b.text[:0], cause: b.cause[:0]}
		return b
	}
	return &block{kind: kind, text: make([]byte, 0, 1<<10), cause: make([]int64, 0, 32)}
}

// freeBlock keeps b, closed, for newBlock; nothing may refer to it.
func (n *Normalizer) freeBlock(b *block) {
	if len(n.freeBlocks) < maxFreeBlocks && cap(b.text) <= maxKeptText && cap(b.cause) <= event.SlabSize {
		n.freeBlocks = append(n.freeBlocks, b)
	}
}

// New returns a Normalizer at the start of a stream, for Claude Code's
// own output (deltas are pieces).
func New() *Normalizer { return NewWithOptions(Options{}) }

// NewWithOptions returns a Normalizer at the start of a stream that reads
// it as o says.
func NewWithOptions(o Options) *Normalizer {
	n := &Normalizer{
		streamed:   map[string]bool{},
		streams:    map[string]*stream{},
		agents:     map[string]*event.Agent{},
		taskTool:   map[string]string{},
		perms:      map[string]permRequest{},
		parts:      map[string]int{},
		usageOf:    map[string]bool{},
		cumulative: o.CumulativeDeltas,
		pick:       linePick(),
	}
	n.slab = &n.ownSlab
	return n
}

// UseSlab takes the memory of delta events and their causes from s, or
// from the normalizer's own Slab when s is nil (event.SlabUser).
func (n *Normalizer) UseSlab(s *event.Slab) {
	if s == nil {
		s = &n.ownSlab
	}
	n.slab = s
}

// Line normalizes one native line (without its newline). ref goes into the
// Cause of every event derived from the line. Lines that are not JSON give
// one unknown event; blank lines give nothing.
func (n *Normalizer) Line(ref int64, line []byte) []event.Event {
	return n.line(ref, line, false, false)
}

// LineValid is Line for a line the caller has already checked is valid
// JSON (gjson.ValidBytes, as an envelope reader checks a native_in
// payload): the normalizer does not validate it again. The events are the
// same as Line's; on a line that is not valid JSON they are unspecified.
func (n *Normalizer) LineValid(ref int64, line []byte) []event.Event {
	return n.line(ref, line, true, false)
}

// LineOwned is LineValid for a line the caller gives away
// (event.OwnedLiner): the strings kept from it point into it, uncopied.
func (n *Normalizer) LineOwned(ref int64, line []byte) []event.Event {
	return n.line(ref, line, true, true)
}

// ReadsLinesInPlace says that Line and LineValid copy only what they keep
// of the line, not the line (event.InPlaceLiner).
func (n *Normalizer) ReadsLinesInPlace() {}

// line is Line; valid says the caller has validated the line, owned that
// it gave the line away.
func (n *Normalizer) line(ref int64, line []byte, valid, owned bool) []event.Event {
	if len(bytes.TrimSpace(line)) == 0 {
		return nil
	}
	n.sawLine = true
	if !valid && !jsonpick.Valid(line) { // gjson.ValidBytes, faster: see internal/jsonpick
		return []event.Event{unknown(ref, census.Invalid)}
	}
	// The line is read in place either way; a line not given away is
	// borrowed only for this call (see borrowed).
	v := jsonpick.ParseOwned(line)
	if !v.IsObject() {
		return []event.Event{unknown(ref, census.Invalid)}
	}
	if owned {
		return n.object(ref, v)
	}
	n.keeper.Borrow(line)
	evs := n.object(ref, v)
	clone := n.keeper.CloneFunc()
	for i := range evs {
		evs[i].Detach(line, clone)
	}
	n.keeper.Release()
	return evs
}

// object normalizes the line v, a JSON object.
func (n *Normalizer) object(ref int64, v gjson.Result) []event.Event {
	jsonpick.PickNested(v, n.pick)
	f := (*[lineFields]gjson.Result)(n.pick.Out)
	parent := n.keep(f[lParent].String())
	if st := f[lSubagentType].String(); parent != "" && st != "" {
		// Claude Code 2.1 names the subagent on each of its lines too.
		n.agentFor(parent).Name = n.keep(st)
	}
	n.cur = n.streamOf(parent)
	return n.nest(parent, n.dispatch(ref, v, f))
}

// keep returns s, or a copy of it when s is part of a borrowed line
// (jsonpick.Keeper.Keep).
func (n *Normalizer) keep(s string) string { return n.keeper.Keep(s) }

// dispatch normalizes the line v, whose top-level fields f holds (see pick).
func (n *Normalizer) dispatch(ref int64, v gjson.Result, f *[lineFields]gjson.Result) []event.Event {
	switch f[lType].String() {
	case "system":
		return n.system(ref, v)
	case "stream_event":
		return n.streamEvent(ref, v, f[lEvent])
	case "assistant":
		return n.assistant(ref, v, f)
	case "user":
		return n.user(ref, v)
	case "result":
		return n.result(ref, v)
	case "rate_limit_event":
		return rateLimit(ref, v)
	case "control_request":
		return n.controlRequest(ref, v)
	case "control_response":
		return n.controlResponse(ref, v)
	case "tool_progress", "tool_use_summary", "keep_alive", "prompt_suggestion":
		return nil // see ignoredReason
	}
	return []event.Event{unknown(ref, nativeType(v))}
}

// streamOf returns the stream state of the agent named by parent ("" for
// the main agent), making it on first use.
func (n *Normalizer) streamOf(parent string) *stream {
	s, ok := n.streams[parent]
	if !ok {
		s = &stream{blocks: map[int64]*block{}}
		n.streams[parent] = s
	}
	return s
}

// End reports the end of the stream: it closes blocks left open by a cut
// stream and, when no result line arrived, reports an incomplete result.
func (n *Normalizer) End() []event.Event {
	var out []event.Event
	for _, parent := range slices.Sorted(maps.Keys(n.streams)) {
		n.cur = n.streams[parent]
		var evs []event.Event
		for _, idx := range sortedKeys(n.cur.blocks) {
			if ev, ok := n.closeBlock(idx, nil); ok {
				evs = append(evs, ev)
			}
		}
		out = append(out, n.nest(parent, evs)...)
	}
	if n.sawLine && !n.sawResult {
		out = append(out, event.Event{Kind: event.KindResult, Phase: event.PhaseFailed,
			Result: &event.Result{Subtype: "incomplete", IsError: true}})
	}
	return out
}

func (n *Normalizer) system(ref int64, v gjson.Result) []event.Event {
	switch v.Get("subtype").String() {
	case "init":
		// A new turn may follow a result when input is streamed in.
		n.sawResult, n.sawFatal = false, false
		return []event.Event{{Kind: event.KindInit, Phase: event.PhaseCompleted,
			SessionID: v.Get("session_id").String(), Model: v.Get("model").String(),
			Version: v.Get("claude_code_version").String(), Cause: []int64{ref}}}
	case "api_retry":
		return []event.Event{{Kind: event.KindRetry, Phase: event.PhaseUpdated, Cause: []int64{ref},
			Retry: &event.Retry{
				Attempt:    int(v.Get("attempt").Int()),
				MaxRetries: int(v.Get("max_retries").Int()),
				DelayMs:    int64(math.Round(v.Get("retry_delay_ms").Float())),
				Status:     int(v.Get("error_status").Int()),
				Error:      v.Get("error").String(),
			}}}
	case "status":
		return []event.Event{{Kind: event.KindStatus, Phase: event.PhaseUpdated,
			Status: v.Get("status").String(), NativeType: "system/status", Cause: []int64{ref}}}
	case "thinking_tokens":
		return nil // see ignoredReason
	case "hook_started", "hook_progress", "hook_response":
		return []event.Event{hook(ref, v)}
	case "task_started", "task_progress", "task_updated", "task_notification":
		return n.task(ref, v)
	case "permission_denied":
		return n.permissionDenied(ref, v)
	case "compact_boundary", "session_state_changed", "notification", "informational",
		"local_command_output", "model_refusal_fallback", "model_refusal_no_fallback",
		"plugin_install", "memory_recall", "mirror_error", "elicitation_complete",
		"files_persisted", "commands_changed", "worker_shutting_down", "background_tasks_changed",
		"control_request_progress":
		return []event.Event{systemStatus(ref, v)}
	}
	return []event.Event{unknown(ref, nativeType(v))}
}

// streamEvent normalizes a stream_event line v, whose event e's members
// line's PickNested read into n.pick.
func (n *Normalizer) streamEvent(ref int64, v, e gjson.Result) []event.Event {
	f := (*[eventFields]gjson.Result)(n.pick.Sub[lEvent].Out)
	switch f[eType].String() {
	case "message_start":
		m := f[eMessage]
		n.cur.msgID = n.keep(m.Get("id").String())
		n.streamed[n.cur.msgID] = true
		n.usageOf[n.cur.msgID] = true
		n.cur.msgUsage = anthropicUsage(m.Get("usage"))
		clear(n.cur.blocks)
		u := n.cur.msgUsage
		return n.slab.One(&event.Event{Kind: event.KindUsage, Phase: event.PhaseUpdated, MessageID: n.cur.msgID,
			Usage: &u, Cause: n.slab.Ref(ref)})
	case "content_block_start":
		return n.blockStart(ref, v, f)
	case "content_block_delta":
		return n.blockDelta(ref, v, f)
	case "content_block_stop":
		if ev, ok := n.closeBlock(f[eIndex].Int(), &ref); ok {
			return n.slab.One(&ev)
		}
		return nil
	case "message_delta":
		// The delta's counts are running totals for this message; input
		// and cache counts only come with message_start.
		u := n.cur.msgUsage
		mu := f[eUsage]
		if x := mu.Get("output_tokens"); x.Exists() {
			u.OutputTokens = x.Int()
		}
		if x := mu.Get("input_tokens"); x.Exists() && x.Int() > 0 {
			u.InputTokens = x.Int()
		}
		n.cur.msgUsage = u
		return n.slab.One(&event.Event{Kind: event.KindUsage, Phase: event.PhaseUpdated, MessageID: n.cur.msgID,
			Usage: &u, Cause: n.slab.Ref(ref)})
	case "message_stop", "ping":
		return nil // see ignoredReason
	case "error":
		return []event.Event{{Kind: event.KindError, Phase: event.PhaseFailed, Cause: []int64{ref},
			Error: &event.Error{Type: e.Get("error.type").String(), Message: e.Get("error.message").String()}}}
	}
	return []event.Event{unknown(ref, nativeType(v))}
}

func (n *Normalizer) blockStart(ref int64, v gjson.Result, e *[eventFields]gjson.Result) []event.Event {
	idx := e[eIndex].Int()
	cb := e[eContentBlock]
	// Room for the refs and the text of a typical block, which grow by
	// one delta at a time (growing from nothing was most of the
	// normalizer's allocations).
	b := n.newBlock("")
	b.cause = append(b.cause, ref)
	n.cur.blocks[idx] = b
	base := event.Event{Phase: event.PhaseStarted, MessageID: n.cur.msgID,
		PartID: strconv.FormatInt(idx, 10), Cause: n.slab.Ref(ref)}
	switch cb.Get("type").String() {
	case "text":
		b.kind = event.KindText
		b.text = append(b.text, cb.Get("text").String()...)
	case "thinking":
		b.kind = event.KindThinking
		b.text = append(b.text, cb.Get("thinking").String()...)
	case "tool_use", "server_tool_use":
		b.kind = event.KindTool
		b.id, b.name = n.keep(cb.Get("id").String()), n.keep(cb.Get("name").String())
		name, _ := toolName(b.name, gjson.Result{})
		base.PartID, base.ToolCallID = "", b.id
		base.Tool = &event.Tool{Name: name}
	default:
		return []event.Event{unknown(ref, nativeType(v))}
	}
	base.Kind = b.kind
	return n.slab.One(&base)
}

func (n *Normalizer) blockDelta(ref int64, v gjson.Result, e *[eventFields]gjson.Result) []event.Event {
	d := (*[deltaFields]gjson.Result)(n.pick.Sub[lEvent].Sub[eDelta].Out)
	idx := e[eIndex].Int()
	b := n.cur.blocks[idx]
	var piece string
	snapshot := false
	typ := d[dType].String()
	switch typ {
	case "text_delta":
		piece, snapshot = d[dText].String(), n.cumulative
	case "thinking_delta":
		piece, snapshot = d[dThinking].String(), n.cumulative
	case "input_json_delta":
		piece = d[dPartialJSON].String()
	case "signature_delta", "citations_delta":
		return nil // see ignoredReason
	default:
		return []event.Event{unknown(ref, nativeType(v))}
	}
	if b == nil {
		// A delta for a block that never started: keep the text visible.
		b = n.newBlock(event.KindText)
		if typ == "thinking_delta" {
			b.kind = event.KindThinking
		}
		n.cur.blocks[idx] = b
	}
	partID := strconv.FormatInt(idx, 10)
	var out []event.Event
	if snapshot && piece != "" {
		if prev := b.text; strings.HasPrefix(piece, string(prev)) {
			piece = piece[len(prev):]
		} else {
			b.text = b.text[:0]
			out = append(out, event.Event{Kind: event.KindStatus, Phase: event.PhaseUpdated, MessageID: n.cur.msgID,
				PartID: partID, Status: StatusSnapshotRewritten, NativeType: nativeType(v), Cause: []int64{ref}})
		}
	}
	b.text = append(b.text, piece...)
	b.cause = append(b.cause, ref)
	if b.kind == event.KindTool || piece == "" {
		return out
	}
	ev := event.Event{Kind: b.kind, Phase: event.PhaseDelta, MessageID: n.cur.msgID,
		PartID: partID, Text: piece, Cause: n.slab.Ref(ref)}
	if out == nil {
		return n.slab.One(&ev)
	}
	return append(out, ev)
}

// closeBlock turns an open block into its completed event. stop is the
// ref of the content_block_stop line, nil when the stream ended first.
func (n *Normalizer) closeBlock(idx int64, stop *int64) (event.Event, bool) {
	b, ok := n.cur.blocks[idx]
	if !ok {
		return event.Event{}, false
	}
	delete(n.cur.blocks, idx)
	defer n.freeBlock(b)
	if stop != nil {
		b.cause = append(b.cause, *stop)
	}
	ev := event.Event{Kind: b.kind, Phase: event.PhaseCompleted, MessageID: n.cur.msgID, Cause: n.slab.Refs(b.cause)}
	switch b.kind {
	case event.KindText, event.KindThinking:
		ev.PartID = strconv.FormatInt(idx, 10)
		ev.Text = string(b.text)
	case event.KindTool:
		ev.ToolCallID = b.id
		raw := string(b.text)
		if strings.TrimSpace(raw) == "" {
			raw = "{}"
		}
		in := gjson.Parse(raw)
		name, summary := toolName(b.name, in)
		ev.Tool = &event.Tool{Name: name, Summary: summary}
		if gjson.Valid(raw) {
			ev.Tool.Input = json.RawMessage(raw)
		}
		n.noteSubagent(b.id, b.name, in)
	default:
		return event.Event{}, false
	}
	return ev, true
}

func (n *Normalizer) assistant(ref int64, v gjson.Result, lf *[lineFields]gjson.Result) []event.Event {
	m := (*[messageFields]gjson.Result)(n.pick.Sub[lMessage].Out)
	id := n.keep(m[mID].String()) // a key of streamed, usageOf and parts
	var out []event.Event
	if m[mModel].String() == "<synthetic>" || lf[lError].Exists() {
		// Claude Code reports a failed API call (401, 400, …) as an
		// assistant message it made up itself; its text is the error.
		synthetic := m[mModel].String() == "<synthetic>"
		msg := contentText(m[mContent])
		out = append(out, event.Event{Kind: event.KindError, Phase: event.PhaseFailed, MessageID: id,
			Cause: []int64{ref}, Error: &event.Error{Type: lf[lError].String(), Message: msg, Fatal: synthetic}})
		if synthetic {
			n.sawFatal = true
			return out
		}
	}
	if n.streamed[id] {
		// Partial mode: the stream events of this message already gave
		// (or will give, at content_block_stop) every block.
		return out
	}
	if !n.usageOf[id] {
		n.usageOf[id] = true
		u := anthropicUsage(m[mUsage])
		out = append(out, event.Event{Kind: event.KindUsage, Phase: event.PhaseUpdated, MessageID: id,
			Usage: &u, Cause: []int64{ref}})
	}
	var c [blockFields]gjson.Result
	jsonpick.Each(m[mContent], func(cv gjson.Result) {
		jsonpick.Pick(cv, blockKeys, c[:])
		part := strconv.Itoa(n.parts[id])
		n.parts[id]++
		ev := event.Event{Phase: event.PhaseCompleted, MessageID: id, PartID: part, Cause: []int64{ref}}
		switch c[bType].String() {
		case "text":
			ev.Kind, ev.Text = event.KindText, c[bText].String()
		case "thinking":
			ev.Kind, ev.Text = event.KindThinking, c[bThinking].String()
		case "tool_use", "server_tool_use":
			in := c[bInput]
			name, summary := toolName(c[bName].String(), in)
			ev.Kind, ev.PartID, ev.ToolCallID = event.KindTool, "", c[bID].String()
			ev.Tool = &event.Tool{Name: name, Summary: summary}
			if in.Exists() {
				ev.Tool.Input = json.RawMessage(in.Raw)
			}
			n.noteSubagent(ev.ToolCallID, c[bName].String(), in)
		default:
			ev = unknown(ref, "assistant/"+c[bType].String())
		}
		out = append(out, ev)
	})
	return out
}

// user normalizes the tool results of the user line v.
func (n *Normalizer) user(ref int64, v gjson.Result) []event.Event {
	// The first message member's content, as line's PickNested read it
	// (gjson's Get walked a content of many MiB to its end once more).
	content := n.pick.Sub[lMessage].Out[mContent]
	if !content.Exists() {
		// v.Get("message.content") goes on to a later message member
		// when the first has no content; so does this.
		content = v.Get("message.content")
	}
	var out []event.Event
	var raw [resultRawFields]string
	// One walk of each block for its fields and its content (read raw).
	jsonpick.EachPickRaw(content, resultKeys, raw[:], func(cv gjson.Result) {
		if jsonpick.ParseValue(raw[rType]).String() != "tool_result" {
			return // prompt text echoed back; see ignoredReason
		}
		isErr := jsonpick.ParseValue(raw[rIsError]).Bool()
		output, size := resultText(raw[rContent])
		ph := event.PhaseCompleted
		if isErr {
			ph = event.PhaseFailed
		}
		out = append(out, event.Event{Kind: event.KindToolResult, Phase: ph,
			ToolCallID: jsonpick.ParseValue(raw[rToolUseID]).String(), Cause: []int64{ref},
			ToolResult: &event.ToolResult{IsError: isErr, Output: output, OutputBytes: size}})
	})
	return out
}

func (n *Normalizer) result(ref int64, v gjson.Result) []event.Event {
	n.sawResult = true
	isErr := v.Get("is_error").Bool()
	subtype := v.Get("subtype").String()
	text := v.Get("result").String()
	if !v.Get("result").Exists() {
		var errs []string
		for _, e := range v.Get("errors").Array() {
			errs = append(errs, e.String())
		}
		text = strings.Join(errs, "\n")
	}
	var out []event.Event
	if u := v.Get("usage"); u.Exists() {
		tot := anthropicUsage(u)
		tot.Cumulative = true
		out = append(out, event.Event{Kind: event.KindUsage, Phase: event.PhaseUpdated, Usage: &tot, Cause: []int64{ref}})
	}
	if isErr && !n.sawFatal {
		msg := text
		if msg == "" {
			msg = subtype
		}
		typ := subtype
		if s := v.Get("api_error_status"); s.Type == gjson.Number {
			typ = "api_error_" + s.Raw
		}
		out = append(out, event.Event{Kind: event.KindError, Phase: event.PhaseFailed, Cause: []int64{ref},
			Error: &event.Error{Type: typ, Message: msg, Fatal: true}})
	}
	ph := event.PhaseCompleted
	if isErr {
		ph = event.PhaseFailed
	}
	n.sawFatal = false
	return append(out, event.Event{Kind: event.KindResult, Phase: ph, SessionID: v.Get("session_id").String(),
		Cause: []int64{ref}, Result: &event.Result{
			Subtype:    subtype,
			IsError:    isErr,
			NumTurns:   int(v.Get("num_turns").Int()),
			CostUSD:    v.Get("total_cost_usd").Float(),
			DurationMs: v.Get("duration_ms").Int(),
			Text:       text,
		}})
}

// resultText returns the output a tool_result block keeps (cut by
// textcut.Output) and the length of the whole, from the raw text of its
// content ("" when it has none). The content, often the largest value of
// a run, is read raw: a string content is decoded only as far as the cut.
func resultText(raw string) (string, int) {
	if raw != "" && raw[0] == '"' {
		return jsonpick.CutString(raw)
	}
	var v gjson.Result
	if raw != "" {
		v = jsonpick.ParseValue(raw)
	}
	full := contentText(v)
	return textcut.Output(full), len(full)
}

// anthropicUsage reads an Anthropic usage object. Anthropic counts input,
// cache reads and cache writes as disjoint figures; they are kept so.
func anthropicUsage(u gjson.Result) event.Usage {
	return event.Usage{
		InputTokens:      u.Get("input_tokens").Int(),
		OutputTokens:     u.Get("output_tokens").Int(),
		CacheReadTokens:  u.Get("cache_read_input_tokens").Int(),
		CacheWriteTokens: u.Get("cache_creation_input_tokens").Int(),
	}
}

// contentText flattens message content that is either a string or a list
// of blocks; only the text blocks count.
func contentText(c gjson.Result) string {
	if c.Type == gjson.String {
		return c.String()
	}
	var parts []string
	for _, b := range c.Array() {
		if b.Get("type").String() == "text" {
			parts = append(parts, b.Get("text").String())
		}
	}
	return strings.Join(parts, "\n")
}

func unknown(ref int64, native string) event.Event {
	return event.Event{Kind: event.KindUnknown, Phase: event.PhaseUpdated, NativeType: native, Cause: []int64{ref}}
}

func sortedKeys(m map[int64]*block) []int64 {
	return slices.Sorted(maps.Keys(m))
}
