package sanitize

import (
	"strings"

	"github.com/evcap/evcap/provider"
	"github.com/evcap/evcap/providers"
)

// Native stdout lines are a provider's wire format: which of them carry a
// streamed delta, and which end a block, is the provider descriptor's
// Deltas tracker's to say (one tracker per provider of the capture); the
// tracker also hands over each piece's text (provider.Delta.Text), so the
// line is not read here at all. A block's Start piece (the text a Claude content_block_start opens with)
// is not streamed: its line is redacted as a whole, as any other line.

// nativeKey is the prefix of the blocks of native stdout.
const nativeKey = "native|"

// native classifies one native stdout line of the named provider (valid
// when the caller has found it to be one valid JSON value). A
// provider the registry does not know ("" before a live stream is
// detected) has its line judged by every provider's tracker: ends from all
// of them, the piece from the first (by name) that finds one.
func (b *observer) native(name string, body []byte, valid bool) delta {
	var d delta
	known, seen := b.known[name]
	if !seen {
		// Asked once per name: the registry builds its table per call,
		// which was a few per cent of record's time when done per line.
		_, known = providers.Lookup(name)
		b.known[name] = known
	}
	if known {
		b.track(name, body, valid, &d)
		return d
	}
	if b.names == nil {
		b.names = providers.Names()
	}
	for _, n := range b.names {
		b.track(n, body, valid, &d)
	}
	return d
}

// track feeds body to the named provider's tracker and adds what it found
// to d (the piece only when d has none yet). A valid body goes to a
// tracker's LineValid, which does not check it again.
func (b *observer) track(name string, body []byte, valid bool, d *delta) {
	tr, ok := b.trackers[name]
	if !ok {
		if desc, found := providers.Lookup(name); found && desc.Deltas != nil {
			tr = desc.Deltas()
		}
		b.trackers[name] = tr // nil for a provider with no tracker: no deltas
	}
	if tr == nil {
		return
	}
	var pieces []provider.Delta
	if vt, ok := tr.(provider.ValidDeltas); ok && valid {
		pieces = vt.LineValid(body)
	} else {
		pieces = tr.Line(body)
	}
	for _, e := range tr.Ended() {
		d.ends = append(d.ends, b.blockKey(name, e))
	}
	if d.isDelt {
		return
	}
	for _, p := range pieces {
		if p.Start {
			continue
		}
		// The tracker read the piece's text to judge the line
		// (Delta.Text); it may point into body, so it is copied: the
		// delta keeps it. A piece past a frame (Offset > 0) is not at its
		// path in body.
		if p.Offset == 0 {
			d.key, d.path, d.text, d.isDelt = b.blockKey(name, p.Block), p.Path, strings.Clone(p.Text), true
		}
		break
	}
}

// blockKey is the key of a native block: "native|<provider>|<block>\x00".
// The last one made is kept: a block's deltas come one after another.
func (b *observer) blockKey(name, block string) string {
	if name != b.keyName || block != b.keyBlock || b.key == "" {
		b.keyName, b.keyBlock, b.key = name, block, nativeKey+name+"|"+block+"\x00"
	}
	return b.key
}
