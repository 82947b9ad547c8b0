package claude

import (
	"strconv"

	"github.com/evcap/evcap/provider"
	"github.com/tidwall/gjson"
)

// Deltas follows the content blocks of a Claude Code stream-json stream
// the way Normalizer reads them. Each agent streams on its own: the main
// agent's stream_event lines and every subagent's (parent_tool_use_id set)
// interleave, so blocks are kept per parent_tool_use_id. A block opens at
// its content_block_start (or at a delta for an index that has none open),
// and ends at its content_block_stop, its message_stop or the agent's
// next message_start.
// Its pieces are the text_delta, thinking_delta and input_json_delta
// strings; the text or thinking a content_block_start carries is reported
// as the block's Start piece.
type Deltas struct {
	agents map[string]*agentBlocks
	serial int
	out    []provider.Delta
	ended  []string
}

// agentBlocks is what one agent (by parent_tool_use_id) has open.
type agentBlocks struct {
	parent string
	msgID  string
	blocks map[int64]string // content block index → block identity
	order  []int64          // open indexes in the order they opened
}

// NewDeltas returns a tracker at the start of a stream.
func NewDeltas() *Deltas { return &Deltas{agents: map[string]*agentBlocks{}} }

var (
	pathText      = []string{"event", "delta", "text"}
	pathThinking  = []string{"event", "delta", "thinking"}
	pathToolInput = []string{"event", "delta", "partial_json"}
	pathStartText = []string{"event", "content_block", "text"}
	pathStartThnk = []string{"event", "content_block", "thinking"}
)

// Line implements provider.Deltas.
func (d *Deltas) Line(line []byte) []provider.Delta {
	d.out, d.ended = d.out[:0], d.ended[:0]
	// Most lines are not stream events, and some are long (tool outputs):
	// the type, Claude Code's first key, is read before the line is
	// validated, so those are not scanned twice.
	if gjson.GetBytes(line, "type").String() != "stream_event" || !gjson.ValidBytes(line) {
		return nil
	}
	// One pass over the top level and one over the event: the fields are
	// read where they are, not looked up from the root one by one.
	var ev, parent gjson.Result
	gjson.ParseBytes(line).ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "event":
			ev = v
		case "parent_tool_use_id":
			parent = v
		}
		return true
	})
	var typ, index, message, block, delta gjson.Result
	ev.ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "type":
			typ = v
		case "index":
			index = v
		case "message":
			message = v
		case "content_block":
			block = v
		case "delta":
			delta = v
		}
		return true
	})
	a := d.agent(parent.String())
	idx := index.Int()
	switch typ.String() {
	case "message_start":
		a.endAll(d)
		a.msgID = message.Get("id").String()
	case "message_stop":
		// Nothing streams into a message after its stop: a block left
		// open by a stream that lost its content_block_stop ends here,
		// so a consumer holding its text (sanitize) lets it go.
		a.endAll(d)
	case "content_block_start":
		a.end(d, idx)
		id := d.open(a, idx)
		switch block.Get("type").String() {
		case "text":
			if block.Get("text").Type == gjson.String {
				d.out = append(d.out, provider.Delta{Block: id, Path: pathStartText, Kind: provider.DeltaText, Start: true})
			}
		case "thinking":
			if block.Get("thinking").Type == gjson.String {
				d.out = append(d.out, provider.Delta{Block: id, Path: pathStartThnk, Kind: provider.DeltaThinking, Start: true})
			}
		}
	case "content_block_stop":
		a.end(d, idx)
	case "content_block_delta":
		var path []string
		var kind provider.DeltaKind
		switch delta.Get("type").String() {
		case "text_delta":
			path, kind = pathText, provider.DeltaText
		case "thinking_delta":
			path, kind = pathThinking, provider.DeltaThinking
		case "input_json_delta":
			path, kind = pathToolInput, provider.DeltaToolInput
		default:
			return nil
		}
		if delta.Get(path[2]).Type != gjson.String {
			return nil
		}
		id, ok := a.blocks[idx]
		if !ok {
			id = d.open(a, idx)
		}
		d.out = append(d.out, provider.Delta{Block: id, Path: path, Kind: kind})
	}
	return d.out
}

// Ended implements provider.Deltas.
func (d *Deltas) Ended() []string { return d.ended }

func (d *Deltas) agent(parent string) *agentBlocks {
	a := d.agents[parent]
	if a == nil {
		a = &agentBlocks{parent: parent, blocks: map[int64]string{}}
		d.agents[parent] = a
	}
	return a
}

// open gives the block at idx a new identity: the agent, the message, the
// index and a serial number, so that no two blocks share one.
func (d *Deltas) open(a *agentBlocks, idx int64) string {
	d.serial++
	id := "claude/" + a.parent + "/" + a.msgID + "/" + strconv.FormatInt(idx, 10) + "#" + strconv.Itoa(d.serial)
	a.blocks[idx] = id
	a.order = append(a.order, idx)
	return id
}

func (a *agentBlocks) end(d *Deltas, idx int64) {
	id, ok := a.blocks[idx]
	if !ok {
		return
	}
	delete(a.blocks, idx)
	for i, x := range a.order {
		if x == idx {
			a.order = append(a.order[:i], a.order[i+1:]...)
			break
		}
	}
	d.ended = append(d.ended, id)
}

func (a *agentBlocks) endAll(d *Deltas) {
	for _, idx := range a.order {
		d.ended = append(d.ended, a.blocks[idx])
		delete(a.blocks, idx)
	}
	a.order = a.order[:0]
}
