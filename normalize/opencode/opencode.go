package opencode

import (
	"bytes"
	"github.com/evcap/evcap/internal/jsonpick"

	"github.com/evcap/evcap/event"
	"github.com/evcap/evcap/internal/census"
	"github.com/tidwall/gjson"
)

// Normalizer turns opencode lines into normalized events. It keeps state
// between lines (part types, user message ids, the turn's sums), so use one
// Normalizer per stream. The zero value is not ready; use New.
type Normalizer struct {
	// userMsgs holds message ids whose role is user (their parts are the
	// prompt echo); asstMsgs the assistant ones.
	userMsgs map[string]bool
	// partKind maps a part id to the kind its deltas become (text, thinking)
	// or "" for parts whose deltas are dropped.
	partKind map[string]partInfo
	// early holds deltas that arrived before their part was described.
	early map[string][]event.Event
	// tools remembers the last status+input seen per tool part, to skip
	// running updates that only change streamed metadata.
	tools map[string]string

	// sse holds data lines of an SSE event that did not parse on its own.
	sse     []byte
	sseRefs []int64

	turn turnState
	// children holds the child sessions (subagents) by session id; tasks
	// the task tool calls that start them (see child.go).
	children map[string]*child
	tasks    []*taskCall
	// perms holds the permission requests not replied to yet, by id.
	perms map[string]event.Event
	// resulted is set once any result was emitted.
	resulted bool

	// cumulative is Options.CumulativeDeltas; snapshots holds, per part
	// id and then per field, the text so far of a part whose deltas are
	// snapshots, until the part completes.
	cumulative bool
	snapshots  map[string]map[string]string
}

// Options change how a Normalizer reads its stream. The zero value gives
// the behaviour of New.
type Options struct {
	// CumulativeDeltas takes the delta of every message.part.delta as the
	// whole text of its part's field so far (a cumulative snapshot) rather
	// than the next piece, for providers that stream that way. A delta
	// event then carries only what the snapshot adds (an empty snapshot
	// adds nothing). A snapshot that does not start with the text so far
	// (the provider rewrote earlier text) is passed on whole, right after a
	// status event with Status StatusSnapshotRewritten. Completed events
	// are unchanged: they carry the part's text from message.part.updated.
	//
	// Snapshots cannot be told from pieces safely, so this is never
	// guessed: turn it on only for a provider known to send them.
	CumulativeDeltas bool
}

// StatusSnapshotRewritten is the Status of the event reported, with
// Options.CumulativeDeltas, when a snapshot does not extend the text its
// part had so far.
const StatusSnapshotRewritten = "snapshot_rewritten"

type partInfo struct {
	kind      event.Kind // KindText, KindThinking, KindTool, or "" (dropped)
	completed bool
}

// turnState accumulates what the synthesized result reports.
type turnState struct {
	active     bool // something happened since the last result
	steps      int
	lastReason string
	fatal      bool
	cost       float64
	lastText   string
	usage      event.Usage
	sessionID  string
	causes     []int64
}

// New returns a Normalizer ready for the first line, for opencode's own
// output (deltas are pieces).
func New() *Normalizer { return NewWithOptions(Options{}) }

// NewWithOptions returns a Normalizer ready for the first line that reads
// the stream as o says.
func NewWithOptions(o Options) *Normalizer {
	return &Normalizer{
		userMsgs:   map[string]bool{},
		partKind:   map[string]partInfo{},
		early:      map[string][]event.Event{},
		tools:      map[string]string{},
		cumulative: o.CumulativeDeltas,
		snapshots:  map[string]map[string]string{},
		children:   map[string]*child{},
		perms:      map[string]event.Event{},
	}
}

// Line normalizes one line (without its newline). ref goes into the Cause
// of every event derived from the line.
func (n *Normalizer) Line(ref int64, line []byte) []event.Event {
	line = bytes.TrimSuffix(line, []byte("\r"))
	payload, kind := sseFrame(line)
	switch kind {
	case frameSkip:
		return nil
	case frameBlank:
		return n.flushSSE()
	case frameData:
		if len(n.sse) == 0 && jsonpick.Valid(payload) {
			return n.validPayload([]int64{ref}, payload)
		}
		if len(n.sse) > 0 {
			n.sse = append(n.sse, '\n')
		}
		n.sse = append(n.sse, payload...)
		n.sseRefs = append(n.sseRefs, ref)
		return nil
	}
	return n.payload([]int64{ref}, line)
}

// LineValid is Line for a line the caller has already checked is valid
// JSON (gjson.ValidBytes, as an envelope reader checks a native_in
// payload): the normalizer does not validate it again. The events are the
// same as Line's; on a line that is not valid JSON they are unspecified.
func (n *Normalizer) LineValid(ref int64, line []byte) []event.Event {
	line = bytes.TrimSuffix(line, []byte("\r"))
	if _, kind := sseFrame(line); kind == frameJSON {
		return n.validPayload([]int64{ref}, line)
	}
	return n.Line(ref, line) // not reached for valid JSON; kept for safety
}

// LineOwned is LineValid for a line the caller gives away
// (event.OwnedLiner): the strings kept from it point into it, uncopied.
func (n *Normalizer) LineOwned(ref int64, line []byte) []event.Event {
	line = bytes.TrimSuffix(line, []byte("\r"))
	if _, kind := sseFrame(line); kind == frameJSON {
		return n.parsedPayload([]int64{ref}, jsonpick.ParseOwned(line))
	}
	return n.Line(ref, line) // not reached for valid JSON; kept for safety
}

// flushSSE handles the data lines of an SSE event that spanned lines.
func (n *Normalizer) flushSSE() []event.Event {
	if len(n.sse) == 0 {
		return nil
	}
	refs := n.sseRefs
	evs := n.payload(refs, n.sse)
	n.sse, n.sseRefs = n.sse[:0], nil
	return evs
}

// payload dispatches one JSON payload to the run or the bus handler.
func (n *Normalizer) payload(refs []int64, p []byte) []event.Event {
	if !jsonpick.Valid(p) { // gjson.ValidBytes, faster: see internal/jsonpick
		return []event.Event{{Kind: event.KindUnknown, Phase: event.PhaseUpdated,
			NativeType: census.Invalid, Cause: refs}}
	}
	return n.validPayload(refs, p)
}

// validPayload is payload for a p that is known to be valid JSON.
func (n *Normalizer) validPayload(refs []int64, p []byte) []event.Event {
	return n.parsedPayload(refs, gjson.ParseBytes(p))
}

// parsedPayload is validPayload for the payload v, parsed.
func (n *Normalizer) parsedPayload(refs []int64, v gjson.Result) []event.Event {
	var f lineFields
	jsonpick.Pick(v, lineKeys, f[:])
	var out []event.Event
	if f[lProperties].IsObject() {
		out = n.bus(refs, v)
	} else {
		out = n.run(refs, v, &f)
	}
	for _, e := range out {
		switch e.Kind {
		case event.KindText, event.KindThinking, event.KindTool, event.KindToolResult,
			event.KindUsage, event.KindError, event.KindRetry:
			n.turn.active = true
		case event.KindResult:
			// result() already reset the turn; the usage before it
			// must not count as new activity.
			n.resulted = true
			n.turn.active = false
		}
	}
	return out
}

// End tells the normalizer the stream is over. It flushes an unfinished SSE
// event and deltas whose part was never described, and synthesizes the
// result when the turn did not end with one.
func (n *Normalizer) End() []event.Event {
	out := n.flushSSE()
	for _, id := range sortedKeys(n.early) {
		for _, d := range n.early[id] {
			d.Kind = event.KindText
			out = append(out, d)
		}
		delete(n.early, id)
	}
	if n.turn.active || !n.resulted {
		out = append(out, n.result(nil)...)
	}
	return out
}

// result synthesizes the end of a turn and resets the turn's sums. refs are
// the lines that ended the turn (done, idle), if any.
func (n *Normalizer) result(refs []int64) []event.Event {
	t := n.turn
	causes := mergeRefs(t.causes, refs)
	res := &event.Result{NumTurns: t.steps, CostUSD: t.cost, Text: t.lastText}
	phase := event.PhaseCompleted
	switch {
	case t.fatal:
		res.Subtype, res.IsError, phase = "error", true, event.PhaseFailed
	case t.lastReason == "stop":
		res.Subtype = "success"
	default:
		res.Subtype, res.IsError, phase = "incomplete", true, event.PhaseFailed
	}
	var out []event.Event
	if t.steps > 0 {
		u := t.usage
		u.Cumulative = true
		out = append(out, event.Event{Kind: event.KindUsage, Phase: event.PhaseUpdated,
			SessionID: t.sessionID, Usage: &u, Cause: causes})
	}
	out = append(out, event.Event{Kind: event.KindResult, Phase: phase,
		SessionID: t.sessionID, Result: res, Cause: causes})
	n.turn = turnState{sessionID: t.sessionID}
	n.resulted = true
	return out
}

// noteStep adds a step-finish part to the turn's sums.
func (n *Normalizer) noteStep(ref []int64, part gjson.Result, u event.Usage) {
	n.turn.steps++
	n.turn.lastReason = part.Get("reason").String()
	n.turn.cost += part.Get("cost").Float()
	n.turn.usage.InputTokens += u.InputTokens
	n.turn.usage.OutputTokens += u.OutputTokens
	n.turn.usage.CacheReadTokens += u.CacheReadTokens
	n.turn.usage.CacheWriteTokens += u.CacheWriteTokens
	n.turn.usage.ReasoningTokens += u.ReasoningTokens
	n.turn.causes = mergeRefs(n.turn.causes, ref)
}

// usageOf reads a step-finish part's tokens.
func usageOf(part gjson.Result) event.Usage {
	t := part.Get("tokens")
	return event.Usage{
		InputTokens:      t.Get("input").Int(),
		OutputTokens:     t.Get("output").Int(),
		ReasoningTokens:  t.Get("reasoning").Int(),
		CacheReadTokens:  t.Get("cache.read").Int(),
		CacheWriteTokens: t.Get("cache.write").Int(),
	}
}
