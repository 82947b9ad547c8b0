package codex

import (
	"bytes"
	"github.com/evcap/evcap/internal/jsonpick"
	"strings"

	"github.com/evcap/evcap/event"
	"github.com/evcap/evcap/internal/census"
	"github.com/tidwall/gjson"
)

// format is which of codex's three JSON line protocols a stream is in. A
// stream is judged by its first line that shows one; see formatOf.
type format int

const (
	formatUnknown  format = iota
	formatThread          // thread.*/turn.*/item.* with item.type (codex 0.44 and later)
	formatItemType        // session.created and items with item.item_type (--experimental-json, codex 0.42–0.43)
	formatLegacy          // {"id","msg":{…}} events (--json before 0.44)
)

// Normalizer turns codex exec JSON lines, in any of the three protocols,
// into normalized events. It keeps the state that spans lines: the
// protocol, whether a turn is open, which tool calls were already
// reported, the text blocks being streamed, the subagent threads. It does
// no I/O. Use New.
type Normalizer struct {
	format      format
	sawLine     bool
	sawTerminal bool // a turn.completed, turn.failed, task_complete or turn_aborted
	turnOpen    bool
	// called holds the ids of tool calls whose call event was emitted, so
	// the end of a call only adds the result.
	called map[string]bool

	// finalAnswer collects, per turn, the agent messages codex marked as
	// the final answer (item.phase "final_answer"); commentary is left out.
	finalAnswer []string

	// spawnedBy maps a subagent's thread id to the id of the collab tool
	// call that spawned it; agentStatus holds the last state reported per
	// thread, so an unchanged state is not reported again.
	spawnedBy   map[string]string
	agentStatus map[string]string

	legacy legacyState

	// keeper holds a line borrowed for the call (Line, LineValid).
	keeper jsonpick.Keeper
}

// New returns a Normalizer at the start of a stream.
func New() *Normalizer {
	return &Normalizer{called: map[string]bool{}, spawnedBy: map[string]string{},
		agentStatus: map[string]string{}, legacy: newLegacyState()}
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
	// borrowed only for this call: the strings the state keeps of it are
	// copied (keeper.Keep), and so are those of the events (event.Detach).
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

// ReadsLinesInPlace says that Line and LineValid copy only what they keep
// of the line, not the line (event.InPlaceLiner).
func (n *Normalizer) ReadsLinesInPlace() {}

// object normalizes the line v, a JSON object.
func (n *Normalizer) object(ref int64, v gjson.Result) []event.Event {
	lf, items := readLine(v)
	var ip itemPick
	ip.readItem(lf[lItem])
	f := formatOfLine(v, &lf, items, ip.hasItemType)
	if n.format == formatUnknown {
		n.format = f
	}
	if f == formatLegacy {
		return n.legacyLine(ref, v)
	}
	cause := []int64{ref}
	switch lf[lType].String() {
	case "thread.started":
		return []event.Event{{Kind: event.KindInit, Phase: event.PhaseCompleted,
			SessionID: v.Get("thread_id").String(), Cause: cause}}
	case "session.created":
		return []event.Event{{Kind: event.KindInit, Phase: event.PhaseCompleted,
			SessionID: v.Get("session_id").String(), Cause: cause}}
	case "turn.started":
		n.turnOpen = true
		n.finalAnswer = nil
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
				Result: &event.Result{Subtype: "success", Text: strings.Join(n.finalAnswer, "\n\n")}},
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
		if n.format == formatItemType {
			// Before turn events existed, a top-level error that is not
			// a retry notice was codex's fatal error (EventMsg::Error):
			// it is the last line of a failed run.
			n.legacy.taskErr = n.keeper.Keep(msg)
			return []event.Event{{Kind: event.KindError, Phase: event.PhaseFailed, Cause: cause,
				Error: &event.Error{Type: "error", Message: msg, Fatal: true}}}
		}
		return []event.Event{{Kind: event.KindError, Phase: event.PhaseFailed, Cause: cause,
			Error: &event.Error{Type: "stream_error", Message: msg}}}
	case "item.started", "item.updated", "item.completed":
		return n.item(ref, v, &lf, &ip)
	case "item.plan.delta", "request_user_input":
		return nil // ignored: see ignoredTypes
	}
	return []event.Event{unknown(ref, nativeType(v))}
}

// End reports the end of the stream. In the thread protocol, a turn that
// neither completed nor failed (an interrupted codex), or a stream that
// never finished any turn, yields an explicit incomplete result. The two
// older protocols print no line at the end of a successful run (codex exec
// drops task_complete), so there the end of the stream adds a failed
// result only when a fatal error was reported and no result followed it.
func (n *Normalizer) End() []event.Event {
	switch n.format {
	case formatLegacy, formatItemType:
		return n.legacy.flushFailure(nil)
	}
	if n.turnOpen || (n.sawLine && !n.sawTerminal) {
		n.turnOpen, n.sawTerminal = false, true
		return []event.Event{{Kind: event.KindResult, Phase: event.PhaseFailed,
			Result: &event.Result{Subtype: "incomplete", IsError: true}}}
	}
	return nil
}

func unknown(ref int64, native string) event.Event {
	return event.Event{Kind: event.KindUnknown, Phase: event.PhaseUpdated, NativeType: native, Cause: []int64{ref}}
}
