package term

import (
	"fmt"
	"strings"

	"github.com/evcap/evcap/event"
	"github.com/evcap/evcap/internal/toolicon"
)

// This file renders the one-line items: everything except streamed text.

func (r *Renderer) init(e event.Event) {
	var parts []string
	if m := oneLine(e.Model); m != "" {
		parts = append(parts, m)
	}
	if v := oneLine(e.Version); v != "" {
		parts = append(parts, "v"+strings.TrimPrefix(v, "v"))
	}
	if id := oneLine(e.SessionID); id != "" {
		parts = append(parts, "session "+id)
	}
	head := "● " + strings.Join(parts, " · ")
	if len(parts) == 0 {
		head = "● session started"
	}
	if head == r.lastInit {
		return // providers that announce every turn repeat the same header
	}
	r.lastInit = head
	r.line(head, r.styles.header)
}

// tool prints a tool call once: at the first event that has a summary, or
// at its completed event. Tool.Input is never looked at.
func (r *Renderer) tool(e event.Event) {
	if e.Tool == nil {
		return
	}
	summary := oneLine(e.Tool.Summary)
	if e.ToolCallID == "" {
		if e.Phase != event.PhaseCompleted {
			return
		}
	} else {
		if r.tools[e.ToolCallID] || (summary == "" && e.Phase != event.PhaseCompleted) {
			if !r.tools[e.ToolCallID] {
				r.unshown[e.ToolCallID] = event.Tool{Name: e.Tool.Name, Summary: e.Tool.Summary}
			}
			return
		}
		r.tools[e.ToolCallID] = true
		delete(r.unshown, e.ToolCallID)
	}
	name := oneLine(e.Tool.Name)
	if name == "" {
		name = "tool"
	}
	desc := name
	if summary != "" {
		desc += ": " + summary
	}
	r.line(toolicon.For(name)+" "+desc, r.styles.tool)
	r.annotate("notice", desc)
}

func (r *Renderer) toolResult(e event.Event) {
	tr := e.ToolResult
	if tr == nil {
		tr = &event.ToolResult{IsError: e.Phase == event.PhaseFailed}
	}
	if tr.IsError || e.Phase == event.PhaseFailed {
		msg := "  ✗ error"
		if first, more := firstLine(tr.Output); first != "" {
			msg += ": " + first
			if more > 0 {
				msg += fmt.Sprintf(" (+%d lines)", more)
			}
		}
		r.line(msg, r.styles.toolErr)
		return
	}
	msg := "  ✓ ok"
	if tr.OutputBytes > 0 {
		msg += " · " + size(tr.OutputBytes)
	}
	r.line(msg, r.styles.ok)
}

// usageLine adds (or, for cumulative figures, replaces) the running totals
// and prints a line each time the total passes a multiple of TokenStep.
func (r *Renderer) usageLine(e event.Event) {
	u := e.Usage
	if u == nil {
		return
	}
	r.usageSeen = true
	switch {
	case u.Cumulative:
		r.usage = *u
	case e.MessageID != "":
		// Several reports for one model call (Anthropic's message_start and
		// message_delta) are running figures for that call: the latest
		// replaces the call's earlier one.
		r.usage = addUsage(addUsage(r.usage, r.perCall[e.MessageID], -1), *u, 1)
		r.perCall[e.MessageID] = *u
	default:
		r.usage = addUsage(r.usage, *u, 1)
	}
	step := r.usage.Total() / TokenStep
	if step <= r.printedSteps {
		return
	}
	r.printedSteps = step
	r.line(fmt.Sprintf("· %s tokens (in %s · out %s)", thousands(r.usage.Total()),
		thousands(r.usage.InputTokens), thousands(r.usage.OutputTokens)), r.styles.usage)
}

func (r *Renderer) retry(e event.Event) {
	rt := e.Retry
	if rt == nil {
		rt = &event.Retry{}
	}
	msg := fmt.Sprintf("⚠ retry %d", rt.Attempt)
	if rt.MaxRetries > 0 {
		msg += fmt.Sprintf("/%d", rt.MaxRetries)
	}
	if rt.Status != 0 {
		msg += fmt.Sprintf(" · status %d", rt.Status)
	}
	if rt.DelayMs > 0 {
		msg += " · in " + duration(rt.DelayMs)
	}
	if m := oneLine(rt.Error); m != "" {
		msg += ": " + m
	}
	r.line(msg, r.styles.warn)
}

func (r *Renderer) failure(e event.Event) {
	er := e.Error
	if er == nil {
		er = &event.Error{Fatal: true}
	}
	msg := oneLine(er.Message)
	if msg == "" {
		msg = "unknown error"
	}
	label := "error"
	if t := oneLine(er.Type); t != "" {
		label += " (" + t + ")"
	}
	if !er.Fatal {
		r.line("⚠ "+label+": "+msg, r.styles.warn)
		return
	}
	r.line("✖ "+label+": "+msg, r.styles.fail)
	r.fatalNoted = true
	r.annotate("error", msg)
}

func (r *Renderer) result(e event.Event) {
	res := e.Result
	if res == nil {
		res = &event.Result{IsError: e.Phase == event.PhaseFailed}
	}
	failed := res.IsError || e.Phase == event.PhaseFailed
	var parts []string
	if failed {
		head := "✖ failed"
		if sub := oneLine(res.Subtype); sub != "" && sub != "success" {
			head += " (" + sub + ")"
		}
		parts = append(parts, head)
	} else {
		parts = append(parts, "✔ done")
	}
	if res.NumTurns > 0 {
		unit := "turns"
		if res.NumTurns == 1 {
			unit = "turn"
		}
		parts = append(parts, fmt.Sprintf("%d %s", res.NumTurns, unit))
	}
	if res.DurationMs > 0 {
		parts = append(parts, duration(res.DurationMs))
	}
	if res.CostUSD > 0 {
		parts = append(parts, fmt.Sprintf("$%.4f", res.CostUSD))
	}
	if r.usageSeen && r.usage.Total() > 0 {
		parts = append(parts, thousands(r.usage.Total())+" tokens")
	}
	msg := strings.Join(parts, " · ")
	if !failed {
		r.line(msg, r.styles.done)
		return
	}
	first, _ := firstLine(res.Text)
	if first != "" {
		msg += ": " + first
	}
	r.line(msg, r.styles.fail)
	if !r.fatalNoted {
		note := first
		if note == "" {
			note = "run failed"
		}
		r.fatalNoted = true
		r.annotate("error", note)
	}
}

func (r *Renderer) permission(e event.Event) {
	p := e.Permission
	if p == nil {
		return
	}
	what := oneLine(p.Tool)
	if sum := oneLine(p.Summary); sum != "" {
		what += ": " + sum
	}
	if len(p.Patterns) > 0 {
		what = strings.TrimSpace(what + " " + oneLine(strings.Join(p.Patterns, " ")))
	}
	switch e.Phase {
	case event.PhaseStarted:
		r.line("🔒 permission asked: "+what, r.styles.warn)
	default:
		reply := oneLine(p.Reply)
		if reply == "" {
			reply = "answered"
		}
		if what == "" {
			r.line("🔒 permission "+reply, r.styles.warn)
			return
		}
		r.line("🔒 permission "+reply+": "+what, r.styles.warn)
	}
}

// addUsage returns a + sign*b, field by field (Cumulative is left as in a).
func addUsage(a, b event.Usage, sign int64) event.Usage {
	a.InputTokens += sign * b.InputTokens
	a.OutputTokens += sign * b.OutputTokens
	a.CacheReadTokens += sign * b.CacheReadTokens
	a.CacheWriteTokens += sign * b.CacheWriteTokens
	a.ReasoningTokens += sign * b.ReasoningTokens
	return a
}
