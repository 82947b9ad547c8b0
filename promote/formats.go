package promote

import (
	"io"
	"time"

	"github.com/evcap/evcap/event"
	"github.com/evcap/evcap/render/chat"
	"github.com/evcap/evcap/render/groups"
	"github.com/evcap/evcap/render/legacy"
	"github.com/evcap/evcap/render/term"
	"github.com/evcap/evcap/replay"
)

// Formats are evcap's renderers as replay renderers, by format name: the
// goldens a fixture gets besides normalized events and legacy markers.
func Formats() map[string]replay.NewRenderer {
	return map[string]replay.NewRenderer{
		"term":   func(w io.Writer) replay.Renderer { return term.New(w, term.Options{}) },
		"chat":   func(w io.Writer) replay.Renderer { return &chatRenderer{w: w, m: chat.New(chat.Options{})} },
		"groups": func(w io.Writer) replay.Renderer { return &groupsRenderer{w: w, a: groups.New()} },
	}
}

// RechunkFormats are the renderers whose output must not change when
// deltas are re-split: Formats, except that the groups output leaves out
// its per-block delta count (which counts chunks, by design).
func RechunkFormats() map[string]replay.NewRenderer {
	f := Formats()
	f["groups"] = func(w io.Writer) replay.Renderer { return &groupsRenderer{w: w, a: groups.New(), noDeltaCount: true} }
	return f
}

// Legacy is render/legacy as a replay renderer: one marker per line.
func Legacy() replay.NewRenderer {
	return func(w io.Writer) replay.Renderer { return &legacyRenderer{w: w, d: legacy.New()} }
}

// chatEpoch and chatPace give chat operations a clock that depends only on
// the capture: an event happens at (its latest cause) × chatPace, so the
// pieces of a re-split delta happen at the same moment as the whole.
var chatEpoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

const chatPace = 150 * time.Millisecond

type chatRenderer struct {
	w    io.Writer
	m    *chat.Message
	last time.Time
}

func (c *chatRenderer) Render(e event.Event) error {
	at := c.last
	if n := len(e.Cause); n > 0 {
		if t := chatEpoch.Add(time.Duration(e.Cause[n-1]) * chatPace); t.After(at) {
			at = t
		}
	} else if at.IsZero() {
		at = chatEpoch
	}
	c.last = at
	return chat.WriteJSONL(c.w, c.m.Handle(at, e))
}

func (c *chatRenderer) Close() error {
	return chat.WriteJSONL(c.w, c.m.Close(c.last.Add(chatPace)))
}

type groupsRenderer struct {
	w            io.Writer
	a            *groups.Accumulator
	noDeltaCount bool
}

func (g *groupsRenderer) Render(e event.Event) error { g.a.Add(e); return nil }

func (g *groupsRenderer) Close() error {
	run := g.a.Run()
	if g.noDeltaCount {
		for _, m := range run.Messages {
			for _, b := range m.Blocks {
				b.Deltas = 0
			}
		}
	}
	return run.WriteJSON(g.w)
}

type legacyRenderer struct {
	w io.Writer
	d *legacy.Deriver
}

func (l *legacyRenderer) Render(e event.Event) error { return writeMarkers(l.w, l.d.Event(e)) }
func (l *legacyRenderer) Close() error               { return writeMarkers(l.w, l.d.End()) }

func writeMarkers(w io.Writer, ms []legacy.Marker) error {
	for _, m := range ms {
		if _, err := io.WriteString(w, m.Line+"\n"); err != nil {
			return err
		}
	}
	return nil
}
