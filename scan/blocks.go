package scan

import (
	"slices"
	"sort"
	"strings"

	"github.com/tidwall/gjson"
)

// Streamed deltas are put back together per block, and the whole block is
// checked, so a secret split across deltas is seen as a reader of the
// rendered output sees it, however the deltas were cut and however far
// apart they are. A block's text is held up to maxBlock bytes; past that
// the held text is checked and all but its last blockOverlap bytes let go,
// so memory stays bounded on endless blocks and no secret shorter than the
// overlap is cut in two.
const (
	maxBlock     = 1 << 20
	blockOverlap = 16 << 10
)

// origin is where one delta of a block came from.
type origin struct {
	off     int // offset of the delta in the block's text
	line    int64
	seq     int64
	pointer string
}

type block struct {
	text    strings.Builder
	origins []origin
}

type blockSet struct {
	open map[string]*block
}

// delta is a streamed piece of text found in a record.
type delta struct {
	key, text, pointer string
}

// deltaOf finds the delta a record carries, and the prefixes of the blocks
// the record ends. stage is the record's stage and body its payload (for
// legacy markers, the marker and its argument).
func deltaOf(stage string, payload gjson.Result) (d delta, ends []string) {
	switch stage {
	case "native_in":
		if payload.Type != gjson.JSON {
			return delta{}, nil
		}
		switch payload.Get("type").String() {
		case "stream_event":
			parent := payload.Get("parent_tool_use_id").String()
			ev := payload.Get("event")
			switch ev.Get("type").String() {
			case "content_block_delta":
				for i, f := range claudeDeltaFields {
					if x := ev.Get(claudeDeltaPaths[i]); x.Type == gjson.String {
						// (One concatenation: one allocation per delta line.)
						return delta{key: "claude|" + parent + "|" + ev.Get("index").Raw + "|" + f, text: x.String(), pointer: claudeDeltaPointers[i]}, nil
					}
				}
			case "content_block_stop":
				return delta{}, []string{"claude|" + parent + "|" + ev.Get("index").Raw + "|"}
			case "message_stop":
				return delta{}, []string{"claude|" + parent + "|"}
			}
		case "message":
			if payload.Get("delta").Bool() {
				if c := payload.Get("content"); c.Type == gjson.String {
					return delta{key: "gemini|" + payload.Get("role").String(), text: c.String(), pointer: "/payload/content"}, nil
				}
			}
		case "message.part.delta":
			p := payload.Get("properties")
			if x := p.Get("delta"); x.Type == gjson.String {
				return delta{key: "opencode|" + p.Get("partID").String() + "|" + p.Get("field").String(), text: x.String(),
					pointer: "/payload/properties/delta"}, nil
			}
		case "message.part.updated":
			if part := payload.Get("properties.part"); part.Get("time.end").Exists() {
				return delta{}, []string{"opencode|" + part.Get("id").String() + "|"}
			}
		}
	case "normalized_out":
		if payload.Type != gjson.JSON {
			return delta{}, nil
		}
		k := payload.Get("kind").String()
		if k != "text" && k != "thinking" {
			return delta{}, nil
		}
		key := "norm|" + k + "|" + payload.Get("messageId").String() + "|" + payload.Get("partId").String()
		switch payload.Get("phase").String() {
		case "delta":
			if t := payload.Get("text"); t.Type == gjson.String {
				return delta{key: key, text: t.String(), pointer: "/payload/text"}, nil
			}
		case "completed":
			return delta{}, []string{key}
		}
	case "legacy_out":
		if payload.Type != gjson.String {
			return delta{}, nil
		}
		s := payload.String()
		for i, mk := range legacyMarkers {
			if rest, ok := strings.CutPrefix(s, mk); ok {
				text := rest
				if v := gjson.Parse(rest); v.Type == gjson.String && gjson.Valid(rest) {
					text = v.String()
				}
				return delta{key: legacyKeys[i], text: text, pointer: "/payload"}, nil
			}
		}
	}
	return delta{}, nil
}

// The fields of a Claude content_block_delta that carry text, their gjson
// paths and their pointers; the legacy delta markers and their blocks'
// keys ("legacy|" and the marker).
var (
	claudeDeltaFields   = [...]string{"text", "thinking", "partial_json"}
	claudeDeltaPaths    = [...]string{"delta.text", "delta.thinking", "delta.partial_json"}
	claudeDeltaPointers = [...]string{"/payload/event/delta/text", "/payload/event/delta/thinking", "/payload/event/delta/partial_json"}
	legacyMarkers       = [...]string{"[CONTENT_DELTA] ", "[THINKING_DELTA] "}
	legacyKeys          = [...]string{"legacy|[CONTENT_DELTA] ", "legacy|[THINKING_DELTA] "}
)

// add appends a delta to its block, checking and trimming the block when
// it grows past maxBlock.
func (bs *blockSet) add(d delta, line, seq int64, check func(*block)) {
	if bs.open == nil {
		bs.open = map[string]*block{}
	}
	b := bs.open[d.key]
	if b == nil {
		b = &block{}
		bs.open[d.key] = b
	}
	b.origins = append(b.origins, origin{off: b.text.Len(), line: line, seq: seq, pointer: d.pointer})
	b.text.WriteString(d.text)
	if b.text.Len() > maxBlock {
		check(b)
		b.keepTail()
	}
}

// keepTail lets go of all but the last blockOverlap bytes.
func (b *block) keepTail() {
	s := b.text.String()
	cut := len(s) - blockOverlap
	if cut <= 0 {
		return
	}
	var kept []origin
	for i, o := range b.origins {
		next := len(s)
		if i+1 < len(b.origins) {
			next = b.origins[i+1].off
		}
		if next > cut {
			o.off -= cut
			if o.off < 0 {
				o.off = 0
			}
			kept = append(kept, o)
		}
	}
	b.origins = kept
	b.text.Reset()
	b.text.WriteString(s[cut:])
}

// origin returns the delta that holds offset off of the block's text.
func (b *block) originAt(off int) origin {
	i := sort.Search(len(b.origins), func(i int) bool { return b.origins[i].off > off })
	if i == 0 {
		return b.origins[0]
	}
	return b.origins[i-1]
}

// end checks and drops every open block whose key starts with one of the
// prefixes.
func (bs *blockSet) end(prefixes []string, check func(*block)) {
	if len(prefixes) == 0 || len(bs.open) == 0 {
		return
	}
	var keys []string
	for k := range bs.open {
		for _, p := range prefixes {
			if strings.HasPrefix(k, p) {
				keys = append(keys, k)
				break
			}
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		check(bs.open[k])
		delete(bs.open, k)
	}
}

// originLines appends the lines of the parts open blocks hold, sorted,
// each once.
func (bs *blockSet) originLines(dst []int64) []int64 {
	for _, b := range bs.open {
		for _, o := range b.origins {
			dst = append(dst, o.line)
		}
	}
	slices.Sort(dst)
	return slices.Compact(dst)
}

// endAll checks every open block (at the end of a file).
func (bs *blockSet) endAll(check func(*block)) {
	keys := make([]string, 0, len(bs.open))
	for k := range bs.open {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		check(bs.open[k])
	}
	bs.open = nil
}
