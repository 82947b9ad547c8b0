package gemini

import (
	"bytes"
	"github.com/evcap/evcap/internal/jsonpick"
	"strconv"
	"strings"

	"github.com/evcap/evcap/event"
	"github.com/evcap/evcap/internal/census"
	"github.com/evcap/evcap/internal/textcut"
	"github.com/tidwall/gjson"
)

// Normalizer turns Gemini CLI stream-json lines into normalized events. It
// keeps the open text run and the session id between lines; use one per
// stream, made with New.
type Normalizer struct {
	sessionID string
	// open text run
	open     bool
	text     strings.Builder
	runRefs  []int64
	runCount int // numbers the text runs; used as the PartID
	// part is partID's string for partOf == runCount, made once per run
	// rather than once per delta.
	part     string
	partOf   int
	lastText string
	resulted bool
	// cumulative is Options.CumulativeDeltas.
	cumulative bool
	// slab holds the causes of lines and the delta events: own, or the
	// caller's (UseSlab).
	slab    *event.Slab
	ownSlab event.Slab
	// keeper holds a line borrowed for the call (Line, LineValid).
	keeper jsonpick.Keeper
}

// Options change how a Normalizer reads its stream. The zero value gives
// the behaviour of New.
type Options struct {
	// CumulativeDeltas takes the content of every assistant message with
	// delta:true as the whole text of its run so far (a cumulative
	// snapshot) rather than the next piece, for gateways and models that
	// stream that way. A delta event then carries only what the snapshot
	// adds (an empty snapshot adds nothing). A snapshot that does not start
	// with the run's text so far (the provider rewrote earlier text)
	// becomes the run's text: its delta event carries it whole, right
	// after a status event with Status StatusSnapshotRewritten, and the
	// completed event carries the last snapshot.
	//
	// Snapshots cannot be told from pieces safely, so this is never
	// guessed: turn it on only for a provider known to send them.
	CumulativeDeltas bool
}

// StatusSnapshotRewritten is the Status of the event reported, with
// Options.CumulativeDeltas, when a snapshot does not extend the text its
// run had so far.
const StatusSnapshotRewritten = "snapshot_rewritten"

// New returns a Normalizer ready for the first line, for Gemini CLI's own
// output (deltas are pieces).
func New() *Normalizer { return NewWithOptions(Options{}) }

// NewWithOptions returns a Normalizer ready for the first line that reads
// the stream as o says.
func NewWithOptions(o Options) *Normalizer {
	n := &Normalizer{cumulative: o.CumulativeDeltas}
	n.slab = &n.ownSlab
	return n
}

// UseSlab takes the memory of delta events and of the lines' causes from
// s, or from the normalizer's own Slab when s is nil (event.SlabUser): a
// pipeline that reuses s once a batch's events are written saves a fresh
// array per 64 deltas and per 64 lines. The state kept between lines
// holds none of it (a run's causes are copied into runRefs).
func (n *Normalizer) UseSlab(s *event.Slab) {
	if s == nil {
		s = &n.ownSlab
	}
	n.slab = s
}

// Line normalizes one line (without its newline); ref goes into the Cause
// of every event derived from it.
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
	line = bytes.TrimSuffix(line, []byte("\r"))
	if !valid && !jsonpick.Valid(line) { // gjson.ValidBytes, faster: see internal/jsonpick
		return []event.Event{{Kind: event.KindUnknown, Phase: event.PhaseUpdated, NativeType: census.Invalid,
			SessionID: n.sessionID, Cause: []int64{ref}}}
	}
	// The line is read in place either way; a line not given away is
	// borrowed only for this call: the strings the state keeps of it are
	// copied (keeper.Keep), and so are those of the events (event.Detach).
	v := jsonpick.ParseOwned(line)
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

// object normalizes the line v.
func (n *Normalizer) object(ref int64, v gjson.Result) []event.Event {
	refs := n.slab.Ref(ref)
	var f [lineFields]gjson.Result
	jsonpick.Pick(v, lineKeys, f[:])
	typ := f[lType].String()
	if typ == "message" && f[lRole].String() == "user" {
		return nil
	}
	if typ == "message" && f[lRole].String() == "assistant" {
		return n.message(refs, v, &f)
	}
	// Any other line ends a run of text deltas.
	out := n.closeRun()
	switch typ {
	case "init":
		if sid := v.Get("session_id").String(); sid != "" {
			n.sessionID = n.keeper.Keep(sid)
		}
		return append(out, event.Event{Kind: event.KindInit, Phase: event.PhaseCompleted,
			SessionID: n.sessionID, Model: v.Get("model").String(), Cause: refs})
	case "tool_use":
		name, summary := summarize(f[lToolName].String(), f[lParameters])
		return append(out, event.Event{Kind: event.KindTool, Phase: event.PhaseCompleted,
			SessionID: n.sessionID, ToolCallID: f[lToolID].String(),
			Tool: &event.Tool{Name: name, Summary: summary, Input: rawOf(f[lParameters])}, Cause: refs})
	case "tool_result":
		return append(out, n.toolResult(refs, v, &f))
	case "result":
		return append(out, n.result(refs, v)...)
	case "error":
		fatal := v.Get("severity").String() != "warning"
		return append(out, event.Event{Kind: event.KindError, Phase: event.PhaseFailed, SessionID: n.sessionID,
			Error: &event.Error{Type: v.Get("severity").String(), Message: v.Get("message").String(), Fatal: fatal},
			Cause: refs})
	}
	return append(out, event.Event{Kind: event.KindUnknown, Phase: event.PhaseUpdated, SessionID: n.sessionID,
		NativeType: nativeType(v), Cause: refs})
}

// message handles the assistant message line v, whose top-level fields f
// holds.
func (n *Normalizer) message(refs []int64, v gjson.Result, f *[lineFields]gjson.Result) []event.Event {
	content := f[lContent].String()
	if !f[lDelta].Bool() {
		out := n.closeRun()
		n.runCount++
		n.lastText = n.keeper.Keep(content)
		return append(out, event.Event{Kind: event.KindText, Phase: event.PhaseCompleted,
			SessionID: n.sessionID, PartID: n.partID(), Text: content, Cause: refs})
	}
	var out []event.Event
	if !n.open {
		out = make([]event.Event, 0, 2) // started and the first delta
		n.open = true
		n.runCount++
		n.text.Reset()
		n.text.Grow(1 << 10)
		// Room for the refs of a typical run, which grows by one delta
		// at a time.
		n.runRefs = make([]int64, 0, 32)
		out = append(out, event.Event{Kind: event.KindText, Phase: event.PhaseStarted,
			SessionID: n.sessionID, PartID: n.partID(), Cause: refs})
	}
	if n.cumulative && content != "" {
		prev := n.text.String()
		if strings.HasPrefix(content, prev) {
			content = content[len(prev):]
		} else {
			n.text.Reset()
			out = append(out, event.Event{Kind: event.KindStatus, Phase: event.PhaseUpdated, SessionID: n.sessionID,
				PartID: n.partID(), Status: StatusSnapshotRewritten, NativeType: nativeType(v), Cause: refs})
		}
	}
	n.text.WriteString(content)
	n.runRefs = append(n.runRefs, refs...)
	ev := event.Event{Kind: event.KindText, Phase: event.PhaseDelta,
		SessionID: n.sessionID, PartID: n.partID(), Text: content, Cause: refs}
	if out == nil {
		return n.slab.One(&ev)
	}
	return append(out, ev)
}

// closeRun completes the open run of text deltas, if any. The completed
// event's cause is every delta line of the run.
func (n *Normalizer) closeRun() []event.Event {
	if !n.open {
		return nil
	}
	n.open = false
	n.lastText = n.text.String()
	return []event.Event{{Kind: event.KindText, Phase: event.PhaseCompleted, SessionID: n.sessionID,
		PartID: n.partID(), Text: n.lastText, Cause: n.runRefs}}
}

// partID names the current text run: Gemini gives text no ids, so runs are
// numbered from 1 in the order they start.
func (n *Normalizer) partID() string {
	if n.part == "" || n.partOf != n.runCount {
		n.part, n.partOf = "text-"+strconv.Itoa(n.runCount), n.runCount
	}
	return n.part
}

func (n *Normalizer) toolResult(refs []int64, v gjson.Result, f *[lineFields]gjson.Result) event.Event {
	isErr := f[lStatus].String() != "success"
	output, size := jsonpick.CutMember(v, "output")
	if isErr && size == 0 {
		full := v.Get("error.message").String()
		output, size = textcut.Output(full), len(full)
	}
	phase := event.PhaseCompleted
	if isErr {
		phase = event.PhaseFailed
	}
	return event.Event{Kind: event.KindToolResult, Phase: phase, SessionID: n.sessionID,
		ToolCallID: f[lToolID].String(),
		ToolResult: &event.ToolResult{IsError: isErr, Output: output, OutputBytes: size},
		Cause:      refs}
}

// result maps the result line: usage from stats, the error if it failed,
// then the result.
func (n *Normalizer) result(refs []int64, v gjson.Result) []event.Event {
	n.resulted = true
	var out []event.Event
	stats := v.Get("stats")
	if stats.Exists() {
		out = append(out, event.Event{Kind: event.KindUsage, Phase: event.PhaseUpdated, SessionID: n.sessionID,
			Usage: &event.Usage{InputTokens: stats.Get("input_tokens").Int(), OutputTokens: stats.Get("output_tokens").Int(),
				CacheReadTokens: stats.Get("cached").Int(), Cumulative: true}, Cause: refs})
	}
	res := &event.Result{Subtype: v.Get("status").String(), DurationMs: stats.Get("duration_ms").Int()}
	phase := event.PhaseCompleted
	if res.Subtype != "success" {
		res.IsError, phase = true, event.PhaseFailed
		e := v.Get("error")
		out = append(out, event.Event{Kind: event.KindError, Phase: event.PhaseFailed, SessionID: n.sessionID,
			Error: &event.Error{Type: e.Get("type").String(), Message: e.Get("message").String(), Fatal: true},
			Cause: refs})
	} else {
		res.Text = n.lastText
	}
	return append(out, event.Event{Kind: event.KindResult, Phase: phase, SessionID: n.sessionID,
		Result: res, Cause: refs})
}

// End completes an open text run and reports an incomplete result when no
// result line came.
func (n *Normalizer) End() []event.Event {
	out := n.closeRun()
	if !n.resulted {
		n.resulted = true
		out = append(out, event.Event{Kind: event.KindResult, Phase: event.PhaseFailed, SessionID: n.sessionID,
			Result: &event.Result{Subtype: "incomplete", IsError: true}})
	}
	return out
}
