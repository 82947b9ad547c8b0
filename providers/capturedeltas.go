package providers

import (
	"strings"

	"github.com/evcap/evcap/provider"
)

// CaptureDeltas follows the streamed delta blocks of a capture's native
// stdout lines, which may come from more than one provider: each line goes
// to the Deltas tracker of the provider its record names (one tracker per
// provider, made on first use). A name the registry does not know (""
// before a live stream was detected) has its line judged by every
// provider's tracker: the ends of all of them, the piece of the first (by
// name) that finds one. It is what sanitize and scan put a capture's
// deltas back together by. The zero value is ready; not safe for
// concurrent use.
type CaptureDeltas struct {
	trackers map[string]provider.Deltas // nil: a provider without deltas
	known    map[string]bool
	names    []string
	ended    []Block
}

// Block names one streamed block of a capture: the provider whose
// tracker follows it and the tracker's name for it (provider.Delta.Block).
type Block struct {
	Provider, Block string
}

// LinePieces is what CaptureDeltas found in one native line.
type LinePieces struct {
	// Ended are the blocks the line ended (before its piece), in the
	// trackers' order; valid until the next Line call.
	Ended []Block
	// Piece is the line's streamed piece when OK: the first one that is
	// not a block's Start text (Claude's content_block_start text, which
	// is not streamed) and lies at its Path in the line (Offset 0: not
	// behind an SSE frame). Piece.Text may point into the line.
	Piece provider.Delta
	// Provider is the provider whose tracker found Piece.
	Provider string
	OK       bool
}

// Line judges one native stdout line (without its newline) of the
// provider named name. valid says the caller found the line to be one
// valid JSON value, which a provider.ValidDeltas tracker then does not
// check again. name and line may be views of a buffer the caller reuses
// after the call; the Provider of each Block and of the piece is name.
func (c *CaptureDeltas) Line(name string, line []byte, valid bool) LinePieces {
	c.ended = c.ended[:0]
	var out LinePieces
	known, seen := c.known[name]
	if !seen {
		// Asked once per name: the registry builds its table per call.
		_, known = Lookup(name)
		if c.known == nil {
			c.known = map[string]bool{}
		}
		// The name may point into the caller's line, whose bytes change
		// after the call: the maps keep a copy.
		c.known[strings.Clone(name)] = known
	}
	if known {
		c.track(name, line, valid, &out)
	} else {
		if c.names == nil {
			c.names = Names()
		}
		for _, n := range c.names {
			c.track(n, line, valid, &out)
		}
	}
	out.Ended = c.ended
	return out
}

// track feeds line to the named provider's tracker and adds what it found
// to out (the piece only when out has none yet).
func (c *CaptureDeltas) track(name string, line []byte, valid bool, out *LinePieces) {
	tr, ok := c.trackers[name]
	if !ok {
		if d, found := Lookup(name); found && d.Deltas != nil {
			tr = d.Deltas()
		}
		if c.trackers == nil {
			c.trackers = map[string]provider.Deltas{}
		}
		c.trackers[strings.Clone(name)] = tr
	}
	if tr == nil {
		return
	}
	var pieces []provider.Delta
	if vt, ok := tr.(provider.ValidDeltas); ok && valid {
		pieces = vt.LineValid(line)
	} else {
		pieces = tr.Line(line)
	}
	for _, e := range tr.Ended() {
		c.ended = append(c.ended, Block{Provider: name, Block: e})
	}
	if out.OK {
		return
	}
	for _, p := range pieces {
		if p.Start {
			continue
		}
		if p.Offset == 0 {
			out.Piece, out.Provider, out.OK = p, name, true
		}
		break
	}
}
