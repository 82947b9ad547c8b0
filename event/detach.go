package event

import (
	"bytes"
	"unsafe"
)

// Detach makes e independent of the bytes of buf: every string of e (its
// own string fields and those of the structs it points to) whose bytes lie
// within buf is replaced by clone(s), and Tool.Input, when it lies within
// buf, by a copy. Strings elsewhere are left as they are.
//
// It is for a normalizer that reads a line in place, without copying it
// first, and hands out events (Normalizer.Line's contract: the caller may
// overwrite the line once the call returns): only the few bytes its events
// keep are copied, not the line. clone must return a string with s's
// bytes that does not share memory with buf (strings.Clone, or a copy into
// an arena that is never overwritten).
func (e *Event) Detach(buf []byte, clone func(string) string) {
	if len(buf) == 0 {
		return
	}
	r := span{uintptr(unsafe.Pointer(unsafe.SliceData(buf))), uintptr(len(buf))}
	d := func(s *string) {
		if r.holds(*s) {
			*s = clone(*s)
		}
	}
	e.Kind = Kind(r.keep(string(e.Kind), clone))
	e.Phase = Phase(r.keep(string(e.Phase), clone))
	e.MessagePhase = MessagePhase(r.keep(string(e.MessagePhase), clone))
	d(&e.SessionID)
	d(&e.TurnID)
	d(&e.MessageID)
	d(&e.PartID)
	d(&e.ToolCallID)
	d(&e.ParentToolCallID)
	d(&e.Text)
	d(&e.Status)
	d(&e.Model)
	d(&e.Version)
	d(&e.NativeType)
	if a := e.Agent; a != nil {
		d(&a.ID)
		d(&a.Name)
		d(&a.Description)
		d(&a.Status)
		d(&a.Summary)
	}
	if t := e.Tool; t != nil {
		d(&t.Name)
		d(&t.Summary)
		if len(t.Input) > 0 && r.holdsBytes(t.Input) {
			t.Input = bytes.Clone(t.Input)
		}
	}
	if t := e.ToolResult; t != nil {
		d(&t.Output)
	}
	if x := e.Result; x != nil {
		d(&x.Subtype)
		d(&x.Text)
	}
	if x := e.Error; x != nil {
		d(&x.Type)
		d(&x.Message)
	}
	if x := e.Retry; x != nil {
		d(&x.Error)
	}
	if p := e.Permission; p != nil {
		d(&p.ID)
		d(&p.Tool)
		d(&p.Summary)
		d(&p.Reply)
		d(&p.Message)
		for i := range p.Patterns {
			d(&p.Patterns[i])
		}
	}
	if x := e.RateLimit; x != nil {
		d(&x.Status)
		d(&x.Type)
	}
	if h := e.Hook; h != nil {
		d(&h.ID)
		d(&h.Name)
		d(&h.Event)
		d(&h.Outcome)
		d(&h.Output)
	}
}

// span is the memory of a buffer: its first byte's address and its length.
type span struct{ lo, n uintptr }

// holds reports whether s has bytes and they start within the span (a
// string from a buffer lies wholly within it).
func (r span) holds(s string) bool {
	return len(s) > 0 && uintptr(unsafe.Pointer(unsafe.StringData(s)))-r.lo < r.n
}

func (r span) holdsBytes(b []byte) bool {
	return uintptr(unsafe.Pointer(unsafe.SliceData(b)))-r.lo < r.n
}

func (r span) keep(s string, clone func(string) string) string {
	if r.holds(s) {
		return clone(s)
	}
	return s
}
