package codex

import (
	"bytes"
	"strconv"

	"github.com/evcap/evcap/provider"
	"github.com/tidwall/gjson"
)

// Deltas follows the streamed delta blocks of a codex stream the way
// Normalizer reads them. codex exec --json (0.44 and later) and
// --experimental-json print whole items, no deltas; so does the legacy
// codex exec --json, which drops the deltas it is sent. The legacy
// protocol stream itself (codex proto, and any tool that prints codex's
// {"id","msg"} events as they come) streams three kinds of block, each a
// run of *_delta lines whose msg.delta strings are its pieces, ended by the
// whole line that repeats its text:
//
//	agent_message_delta               text,     ended by agent_message
//	agent_reasoning_delta             thinking, ended by agent_reasoning
//	agent_reasoning_raw_content_delta thinking, ended by agent_reasoning_raw_content
//
// A block's id is "codex/" and the normalizer's part id of it
// ("codex/agent_message_1"). Lines of other types end nothing: the three
// kinds are counted apart, as the normalizer counts them.
type Deltas struct {
	kinds [3]legacyBlock
	out   [1]provider.Delta
	ended [1]string
	n     int
}

// legacyBlock is the state of one kind of legacy block.
type legacyBlock struct {
	open bool
	seq  int
}

// legacyKind is one kind of legacy block: the type of its delta lines, of
// the whole line that ends it, the normalizer's part id prefix and the
// kind of text.
type legacyKind struct {
	delta, whole, prefix string
	kind                 provider.DeltaKind
}

// legacyKinds are the three kinds of legacy block; index i is
// Deltas.kinds[i].
var legacyKinds = [3]legacyKind{
	{"agent_message_delta", "agent_message", "agent_message", provider.DeltaText},
	{"agent_reasoning_delta", "agent_reasoning", "agent_reasoning", provider.DeltaThinking},
	{"agent_reasoning_raw_content_delta", "agent_reasoning_raw_content", "agent_reasoning_raw", provider.DeltaThinking},
}

// agentType is in every line of the three kinds: their msg.type values all
// start with it.
var agentType = []byte(`"agent_`)

var pathDelta = []string{"msg", "delta"}

// NewDeltas returns a tracker at the start of a stream.
func NewDeltas() *Deltas { return &Deltas{} }

// Line implements provider.Deltas.
func (d *Deltas) Line(line []byte) []provider.Delta { return d.line(line, false) }

// LineValid implements provider.ValidDeltas.
func (d *Deltas) LineValid(line []byte) []provider.Delta { return d.line(line, true) }

// line is Line; valid says the caller has validated the line.
func (d *Deltas) line(line []byte, valid bool) []provider.Delta {
	d.n = 0
	// Every line that matters names an agent_* type; other lines (the
	// item protocols' whole items, tool output) are not validated at all.
	if !bytes.Contains(line, agentType) || (!valid && !gjson.ValidBytes(line)) {
		return nil
	}
	msg := gjson.GetBytes(line, "msg")
	if !msg.IsObject() {
		return nil
	}
	typ := msg.Get("type").String()
	for i := range legacyKinds {
		k, b := &legacyKinds[i], &d.kinds[i]
		switch typ {
		case k.delta:
			if !b.open {
				b.open = true
				b.seq++
			}
			piece := msg.Get("delta")
			if piece.Type != gjson.String {
				return nil // the block is open, but there is no piece to point at
			}
			d.out[0] = provider.Delta{Block: k.blockID(b.seq), Path: pathDelta, Kind: k.kind, Text: piece.Str}
			return d.out[:]
		case k.whole:
			if b.open {
				d.ended[0], d.n = k.blockID(b.seq), 1
			} else {
				b.seq++ // a whole block that was not streamed takes a number too
			}
			b.open = false
			return nil
		}
	}
	return nil
}

func (k *legacyKind) blockID(seq int) string {
	return "codex/" + k.prefix + "_" + strconv.Itoa(seq)
}

// Ended implements provider.Deltas.
func (d *Deltas) Ended() []string { return d.ended[:d.n] }
