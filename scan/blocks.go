package scan

import (
	"slices"
	"sort"
	"strings"
	"unsafe"

	"github.com/evcap/evcap/event"
	"github.com/evcap/evcap/providers"
	"github.com/evcap/evcap/render/legacy"
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

// deltaOf finds the delta a normalized_out or legacy_out record carries
// (evcap's own formats), and the prefixes of the blocks the record ends.
// stage is the record's stage and payload its payload (for legacy markers,
// the marker and its argument). A native_in record's deltas are its
// provider's to say (fileScan.nativeDelta).
func deltaOf(stage string, payload gjson.Result) (d delta, ends []string) {
	switch stage {
	case "normalized_out":
		if payload.Type != gjson.JSON {
			return delta{}, nil
		}
		b := event.ReadBlock(payload.Raw)
		switch {
		case b.EndsAll:
			return delta{}, normEnds
		case b.Key == "":
			return delta{}, nil
		}
		key := "norm|" + b.Key
		switch b.Phase {
		case event.PhaseDelta:
			if b.HasText {
				return delta{key: key, text: b.Text, pointer: "/payload/text"}, nil
			}
		case event.PhaseCompleted:
			return delta{}, []string{key}
		}
	case "legacy_out":
		if payload.Type != gjson.String {
			return delta{}, nil
		}
		line := payload.String()
		if marker, text, ok := legacy.ReadDelta(line); ok {
			return delta{key: "legacy|" + marker, text: text, pointer: "/payload"}, nil
		}
		if legacy.EndsBlocks(line) {
			return delta{}, legacyEnds
		}
	}
	return delta{}, nil
}

// The prefixes of the block keys a normalized result and a legacy
// message or stream boundary end (render/legacy.EndsBlocks), shared:
// nobody writes to them.
var (
	normEnds   = []string{"norm|"}
	legacyEnds = []string{"legacy|"}
)

// nativeDelta finds the delta the native_in JSON payload of the named
// provider carries, and the keys of the blocks it ends, with the
// provider descriptor's tracker (providers.CaptureDeltas): which lines
// stream a block, and where a block ends, is the provider's wire format,
// which only its normalize/ package knows. A block's key is "native|",
// the provider, "|", the tracker's block and a NUL, so that ending one
// block (a prefix of the open keys, for blockSet.end) ends no other.
func (f *fileScan) nativeDelta(provider, payload string) (d delta, ends []string) {
	found := f.deltas.Line(provider, unsafe.Slice(unsafe.StringData(payload), len(payload)), true)
	for _, e := range found.Ended {
		ends = append(ends, nativeBlockKey(e))
	}
	if found.OK {
		p := found.Piece
		b := providers.Block{Provider: found.Provider, Block: p.Block}
		if b != f.lastBlock || f.lastKey == "" {
			f.lastBlock, f.lastKey = providers.Block{Provider: strings.Clone(b.Provider), Block: strings.Clone(b.Block)}, nativeBlockKey(b)
		}
		if !slices.Equal(p.Path, f.lastPath) || f.lastPtr == "" {
			f.lastPath, f.lastPtr = slices.Clone(p.Path), payloadPointer(p.Path)
		}
		d = delta{key: f.lastKey, text: p.Text, pointer: f.lastPtr}
	}
	return d, ends
}

func nativeBlockKey(b providers.Block) string {
	return "native|" + b.Provider + "|" + b.Block + "\x00"
}

// payloadPointer is the JSON pointer of the member at path in a record's
// payload.
func payloadPointer(path []string) string {
	var b strings.Builder
	b.WriteString("/payload")
	for _, k := range path {
		b.WriteByte('/')
		if strings.ContainsAny(k, "~/") {
			// A key's escapes in a JSON pointer (RFC 6901).
			k = strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1")
		}
		b.WriteString(k)
	}
	return b.String()
}

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
