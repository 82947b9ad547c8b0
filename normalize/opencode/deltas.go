package opencode

import (
	"slices"
	"strconv"

	"github.com/evcap/evcap/provider"
	"github.com/tidwall/gjson"
)

// Deltas follows the streamed part fields of an opencode /event bus
// stream, one payload per line or as raw SSE: a message.part.delta
// payload carries a piece of one field of one part (properties.delta, for
// properties.partID and properties.field). A block is one field of one
// part; it ends when a message.part.updated describes the part as finished
// (part.time.end) and, for every open block, when the session goes idle
// (session.idle, or session.status with status idle). A piece of a part
// described as reasoning is thinking, any other piece text (a delta that
// comes before its part is described is taken as text). opencode run
// --format json prints whole parts, so its lines carry none; nor does an
// SSE event whose data spans several lines.
type Deltas struct {
	open      map[string]string // partID + "\x00" + field → block identity
	order     []string          // keys of open, in the order they opened
	reasoning map[string]bool   // parts described as reasoning
	serial    int
	out       [1]provider.Delta
	ended     []string
}

// NewDeltas returns a tracker at the start of a stream.
func NewDeltas() *Deltas {
	return &Deltas{open: map[string]string{}, reasoning: map[string]bool{}}
}

var pathPartDelta = []string{"properties", "delta"}

// Line implements provider.Deltas.
func (d *Deltas) Line(line []byte) []provider.Delta { return d.line(line, false) }

// LineValid implements provider.ValidDeltas: a line its caller found to be
// JSON is not framed, and is not validated again.
func (d *Deltas) LineValid(line []byte) []provider.Delta { return d.line(line, true) }

// line is Line; valid says the caller has validated the line.
func (d *Deltas) line(line []byte, valid bool) []provider.Delta {
	d.ended = d.ended[:0]
	payload, kind := sseFrame(line)
	switch kind {
	case frameJSON, frameData:
	default:
		return nil
	}
	// Only four types matter; the type is read before the payload is
	// validated, so long payloads of other types are not scanned twice.
	typ := gjson.GetBytes(payload, "type").String()
	switch typ {
	case "message.part.delta", "message.part.updated", "session.idle", "session.status":
	default:
		return nil
	}
	if !(valid && kind == frameJSON) && !gjson.ValidBytes(payload) {
		return nil
	}
	offset := len(line) - len(payload)
	p := gjson.GetBytes(payload, "properties")
	switch typ {
	case "message.part.delta":
		f := gjson.GetMany(p.Raw, "partID", "field", "delta")
		if f[2].Type != gjson.String {
			return nil
		}
		part, field := f[0].String(), f[1].String()
		key := part + "\x00" + field
		id, ok := d.open[key]
		if !ok {
			d.serial++
			id = "opencode/" + part + "/" + field + "#" + strconv.Itoa(d.serial)
			d.open[key] = id
			d.order = append(d.order, key)
		}
		k := provider.DeltaText
		if d.reasoning[part] {
			k = provider.DeltaThinking
		}
		d.out[0] = provider.Delta{Block: id, Path: pathPartDelta, Offset: offset, Kind: k, Text: f[2].Str}
		return d.out[:]
	case "message.part.updated":
		f := gjson.GetMany(p.Raw, "part.id", "part.type", "part.time.end")
		part := f[0].String()
		if f[1].String() == "reasoning" {
			d.reasoning[part] = true
		}
		if f[2].Exists() {
			d.end(func(key string) bool { return len(key) > len(part) && key[:len(part)] == part && key[len(part)] == 0 })
		}
	case "session.idle":
		d.end(func(string) bool { return true })
	case "session.status":
		if p.Get("status.type").String() == "idle" {
			d.end(func(string) bool { return true })
		}
	}
	return nil
}

// end ends the open blocks whose keys match, in the order they opened.
func (d *Deltas) end(match func(key string) bool) {
	d.order = slices.DeleteFunc(d.order, func(key string) bool {
		if !match(key) {
			return false
		}
		d.ended = append(d.ended, d.open[key])
		delete(d.open, key)
		return true
	})
}

// Ended implements provider.Deltas.
func (d *Deltas) Ended() []string { return d.ended }
