package sanitize

import "strings"

// Native stdout lines are a provider's wire format: which of them carry a
// streamed delta, and which end a block, is the provider descriptor's
// Deltas tracker's to say (one tracker per provider of the capture); the
// tracker also hands over each piece's text (provider.Delta.Text), so the
// line is not read here at all. A block's Start piece (the text a Claude content_block_start opens with)
// is not streamed: its line is redacted as a whole, as any other line.

// nativeKey is the prefix of the blocks of native stdout.
const nativeKey = "native|"

// native classifies one native stdout line of the named provider (valid
// when the caller has found it to be one valid JSON value), with the
// tracker of that provider (providers.CaptureDeltas: a provider the
// registry does not know, "" before a live stream is detected, has its
// line judged by every provider's tracker).
func (b *observer) native(name string, body []byte, valid bool) delta {
	var d delta
	found := b.deltas.Line(name, body, valid)
	for _, e := range found.Ended {
		d.ends = append(d.ends, b.blockKey(e.Provider, e.Block))
	}
	if found.OK {
		// The tracker read the piece's text to judge the line
		// (Delta.Text); it may point into body, so it is copied: the
		// delta keeps it.
		p := found.Piece
		d.key, d.path, d.text, d.isDelt = b.blockKey(found.Provider, p.Block), p.Path, strings.Clone(p.Text), true
	}
	return d
}

// blockKey is the key of a native block: "native|<provider>|<block>\x00".
// The last one made is kept: a block's deltas come one after another.
func (b *observer) blockKey(name, block string) string {
	if name != b.keyName || block != b.keyBlock || b.key == "" {
		b.keyName, b.keyBlock, b.key = name, block, nativeKey+name+"|"+block+"\x00"
	}
	return b.key
}
