package term

import (
	"strings"

	"github.com/evcap/evcap/event"
)

// This file shows subagents: their work is indented one step per level
// under the tool call that started them, and their start and end get a
// line of their own.

// indentStep is what each level of nesting adds at the start of a line.
const indentStep = "│ "

// nestAt sets the nesting of e before it is rendered. A change of level
// first ends the open block, so its last line keeps the indent it began
// with.
func (r *Renderer) nestAt(e event.Event) {
	d := 0
	if e.ParentToolCallID != "" {
		d = r.toolDepth[e.ParentToolCallID] + 1
	}
	if e.Kind == event.KindTool && e.ToolCallID != "" {
		if _, ok := r.toolDepth[e.ToolCallID]; !ok {
			r.toolDepth[e.ToolCallID] = d
		}
	}
	if d == r.depth {
		return
	}
	r.closeBlock()
	r.depth = d
	if r.opts.Width > 0 {
		// Keep wrapped lines within Width, indent included, but never
		// narrower than a readable column.
		r.wrap.width = max(r.opts.Width-d*len([]rune(indentStep)), 20)
	}
}

// writeIndent starts a line at the current nesting, unstyled.
func (r *Renderer) writeIndent() {
	if r.depth == 0 {
		return
	}
	if r.openStyle != "" {
		r.resetStyle()
	}
	r.out.WriteString(strings.Repeat(indentStep, r.depth))
}

// agent prints a subagent's start and its end (once, however many events
// the provider sends for it); progress is not printed.
func (r *Renderer) agent(e event.Event) {
	a := e.Agent
	if a == nil {
		a = &event.Agent{}
	}
	name := oneLine(a.Name)
	if name == "" {
		name = "subagent"
	}
	key := e.ParentToolCallID + "\x00" + a.ID
	switch e.Phase {
	case event.PhaseStarted:
		r.parentFirst(e.ParentToolCallID)
		msg := "⤷ " + name
		if d := oneLine(a.Description); d != "" {
			msg += ": " + d
		}
		r.line(msg, r.styles.header)
	case event.PhaseCompleted, event.PhaseFailed:
		if r.agentDone[key] {
			return
		}
		r.agentDone[key] = true
		st := oneLine(a.Status)
		if st == "" {
			st = string(e.Phase)
		}
		if e.Phase == event.PhaseFailed {
			r.line("⤶ "+name+" "+st, r.styles.toolErr)
			return
		}
		r.line("⤶ "+name+" "+st, r.styles.ok)
	}
}

// parentFirst prints the tool call that started a subagent, at its own
// level, when the subagent starts before that call was printed (its
// summary comes later: Claude's partial messages, opencode's task part).
func (r *Renderer) parentFirst(id string) {
	t, ok := r.unshown[id]
	if !ok || r.tools[id] {
		return
	}
	d := r.depth
	r.closeBlock()
	r.depth = r.toolDepth[id]
	r.tool(event.Event{Kind: event.KindTool, Phase: event.PhaseCompleted, ToolCallID: id, Tool: &t})
	r.closeBlock()
	r.depth = d
}

// hook prints a hook's outcome when it ends.
func (r *Renderer) hook(e event.Event) {
	h := e.Hook
	if h == nil || (e.Phase != event.PhaseCompleted && e.Phase != event.PhaseFailed) {
		return
	}
	name := oneLine(h.Name)
	if name == "" {
		name = oneLine(h.Event)
	}
	if e.Phase == event.PhaseFailed {
		msg := "↯ hook " + name + " " + oneLine(h.Outcome)
		if first, _ := firstLine(h.Output); first != "" {
			msg += ": " + first
		}
		r.line(msg, r.styles.toolErr)
		return
	}
	r.line("↯ hook "+name+" ok", r.styles.ok)
}

// rateLimit prints a usage-limit report unless it says all is well.
func (r *Renderer) rateLimit(e event.Event) {
	rl := e.RateLimit
	if rl == nil || rl.Status == "allowed" {
		return
	}
	msg := "⚠ rate limit"
	if t := oneLine(rl.Type); t != "" {
		msg += " " + t
	}
	if st := oneLine(rl.Status); st != "" {
		msg += ": " + st
	}
	if rl.Utilization > 0 {
		msg += " · " + percent(rl.Utilization) + " used"
	}
	st := r.styles.warn
	if rl.Status == "rejected" {
		st = r.styles.fail
	}
	r.line(msg, st)
}
