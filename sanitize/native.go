package sanitize

import (
	"slices"
	"strings"

	"github.com/evcap/evcap/providers"
	"github.com/tidwall/gjson"
)

// Native stdout lines are a provider's wire format: which of them carry a
// streamed delta, and which end a block, is the provider descriptor's
// Deltas tracker's to say (one tracker per provider of the capture). Only
// the text of a piece is read here, at the path the tracker gives. A
// block's Start piece (the text a Claude content_block_start opens with)
// is not streamed: its line is redacted as a whole, as any other line.

// nativeKey is the prefix of the blocks of native stdout.
const nativeKey = "native|"

// native classifies one native stdout line of the named provider. A
// provider the registry does not know ("" before a live stream is
// detected) has its line judged by every provider's tracker: ends from all
// of them, the piece from the first (by name) that finds one.
func (b *observer) native(name string, body []byte) delta {
	var d delta
	known, seen := b.known[name]
	if !seen {
		// Asked once per name: the registry builds its table per call,
		// which was a few per cent of record's time when done per line.
		_, known = providers.Lookup(name)
		b.known[name] = known
	}
	if known {
		b.track(name, body, &d)
		return d
	}
	if b.names == nil {
		b.names = providers.Names()
	}
	for _, n := range b.names {
		b.track(n, body, &d)
	}
	return d
}

// track feeds body to the named provider's tracker and adds what it found
// to d (the piece only when d has none yet).
func (b *observer) track(name string, body []byte, d *delta) {
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
	pieces := tr.Line(body)
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
		// The text is looked up in place (gjson.GetBytes would copy the
		// value's raw bytes too) and copied: the delta keeps it.
		if v := gjson.Get(bytesString(body), b.gjsonPath(p.Path)); v.Type == gjson.String {
			d.key, d.path, d.text, d.isDelt = b.blockKey(name, p.Block), p.Path, strings.Clone(v.String()), true
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

// gjsonPath is the package's gjsonPath, with the last path's kept.
func (b *observer) gjsonPath(path []string) string {
	if !slices.Equal(path, b.path) || b.gpath == "" {
		b.path, b.gpath = slices.Clone(path), gjsonPath(path)
	}
	return b.gpath
}

// gjsonPath writes a piece's path as a gjson path, escaping what gjson
// reads as syntax.
func gjsonPath(path []string) string {
	var sb strings.Builder
	for i, p := range path {
		if i > 0 {
			sb.WriteByte('.')
		}
		for j := 0; j < len(p); j++ {
			switch c := p[j]; c {
			case '.', '*', '?', '|', '#', '@', '\\', '!', '=', '<', '>', '%':
				sb.WriteByte('\\')
				sb.WriteByte(c)
			default:
				sb.WriteByte(c)
			}
		}
	}
	return sb.String()
}
