package replayrun

import (
	"fmt"
	"io"

	"github.com/evcap/evcap/event"
	"github.com/evcap/evcap/replay"
)

// Inject wraps the normalizer or renderer of opts with a known fault, so
// that a replay shows what it reports when the code under test is wrong:
//
//	drop-delta         the normalizer loses a text delta
//	duplicate-text     the renderer writes a delta twice
//	last-delta-only    the renderer keeps only the last delta of a run
//	ignore-cumulative  cumulative snapshots (Rechunk.Cumulative) are read
//	                   as pieces, duplicating text
//
// "" injects nothing; any other fault is an error.
func Inject(opts *replay.Options, fault string) error {
	switch fault {
	case "":
	case "drop-delta":
		mk := opts.Normalizer
		opts.Normalizer = func() replay.Normalizer { return &dropDelta{n: mk(), drop: 3} }
	case "ignore-cumulative":
		// The bug class --cumulative exists for: snapshots read as pieces.
		opts.CumulativeNormalizer = opts.Normalizer
	case "duplicate-text", "last-delta-only":
		wrap := func(mk replay.NewRenderer) replay.NewRenderer {
			if mk == nil {
				return nil
			}
			return func(w io.Writer) replay.Renderer {
				if fault == "duplicate-text" {
					return &duplicateText{r: mk(w), dup: 3}
				}
				return &lastDeltaOnly{r: mk(w)}
			}
		}
		opts.Renderer, opts.Legacy = wrap(opts.Renderer), wrap(opts.Legacy)
	default:
		return fmt.Errorf("--inject %q: want drop-delta, duplicate-text or last-delta-only, or ignore-cumulative with --cumulative", fault)
	}
	return nil
}

// dropDelta loses the drop-th text delta, as a normalizer with a boundary
// bug would.
type dropDelta struct {
	n          replay.Normalizer
	seen, drop int
}

func (d *dropDelta) Line(ref int64, line []byte) []event.Event {
	var out []event.Event
	for _, e := range d.n.Line(ref, line) {
		if e.Kind == event.KindText && e.Phase == event.PhaseDelta {
			d.seen++
			if d.seen == d.drop {
				continue
			}
		}
		out = append(out, e)
	}
	return out
}

func (d *dropDelta) End() []event.Event { return d.n.End() }

// duplicateText renders the dup-th text delta twice.
type duplicateText struct {
	r         replay.Renderer
	seen, dup int
}

func (d *duplicateText) Render(e event.Event) error {
	if e.Kind == event.KindText && e.Phase == event.PhaseDelta {
		d.seen++
		if d.seen == d.dup {
			if err := d.r.Render(e); err != nil {
				return err
			}
		}
	}
	return d.r.Render(e)
}

func (d *duplicateText) Close() error { return d.r.Close() }

// lastDeltaOnly keeps only the last of a run of deltas of one block, as a
// renderer that replaces instead of appending would.
type lastDeltaOnly struct {
	r       replay.Renderer
	pending *event.Event
}

func (l *lastDeltaOnly) Render(e event.Event) error {
	if e.Phase == event.PhaseDelta && (e.Kind == event.KindText || e.Kind == event.KindThinking) {
		if l.pending != nil && (l.pending.Kind != e.Kind || l.pending.MessageID != e.MessageID || l.pending.PartID != e.PartID) {
			if err := l.r.Render(*l.pending); err != nil {
				return err
			}
		}
		l.pending = &e
		return nil
	}
	if l.pending != nil {
		p := *l.pending
		l.pending = nil
		if err := l.r.Render(p); err != nil {
			return err
		}
	}
	return l.r.Render(e)
}

func (l *lastDeltaOnly) Close() error {
	if l.pending != nil {
		if err := l.r.Render(*l.pending); err != nil {
			return err
		}
	}
	return l.r.Close()
}
