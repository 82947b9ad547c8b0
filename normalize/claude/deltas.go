package claude

import (
	"strconv"
	"strings"

	"github.com/evcap/evcap/internal/jsonpick"
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
	pick   *jsonpick.Nested // made by the first stream_event line
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
func (d *Deltas) Line(line []byte) []provider.Delta { return d.line(line, false) }

// LineValid implements provider.ValidDeltas: sanitize's line redactor has
// walked the line already, and its walk validates.
func (d *Deltas) LineValid(line []byte) []provider.Delta { return d.line(line, true) }

// deltaPick reads, in one walk, the members of a stream_event line the
// tracker looks at: the normalizer's lineKeys, the event's eventKeys, and
// the blockKeys, messageKeys and deltaKeys of its content_block, message
// and delta (see linefields.go). Like gjson.Get (and the Normalizer's
// walk) it takes the first of duplicate keys.
func deltaPick() *jsonpick.Nested {
	p := jsonpick.NewNested(lineKeys)
	ev := jsonpick.NewNested(eventKeys)
	ev.Sub[eMessage] = jsonpick.NewNested(messageKeys)
	ev.Sub[eContentBlock] = jsonpick.NewNested(blockKeys)
	ev.Sub[eDelta] = jsonpick.NewNested(deltaKeys)
	p.Sub[lEvent] = ev
	// The tracker reads a line's event and parent agent only: what
	// follows parent_tool_use_id (uuid, timing) is not walked.
	p.Enough = func() bool { return p.Out[lEvent].Exists() && p.Out[lParent].Exists() }
	return p
}

// line is Line; valid says the caller has validated the line. The walk
// reads the line in place: what the tracker keeps of it (an agent's
// parent_tool_use_id, a message id) is copied.
func (d *Deltas) line(line []byte, valid bool) []provider.Delta {
	d.out, d.ended = d.out[:0], d.ended[:0]
	// Most lines are not stream events, and some are long (tool outputs):
	// the type, Claude Code's first key, is read before the line is
	// validated, so those are not scanned twice.
	// (Read in place: gjson.GetBytes copies the value it finds, for every
	// native line of a recording.)
	if jsonpick.ParseOwned(line).Get("type").String() != "stream_event" || (!valid && !gjson.ValidBytes(line)) {
		return nil
	}
	if d.pick == nil {
		d.pick = deltaPick()
	}
	jsonpick.PickNested(jsonpick.ParseOwned(line), d.pick)
	top := d.pick.Out
	evp := d.pick.Sub[lEvent]
	ev := evp.Out
	a := d.agent(top[lParent].String())
	idx := ev[eIndex].Int()
	switch ev[eType].String() {
	case "message_start":
		a.endAll(d)
		a.msgID = strings.Clone(evp.Sub[eMessage].Out[mID].String())
	case "message_stop":
		// Nothing streams into a message after its stop: a block left
		// open by a stream that lost its content_block_stop ends here,
		// so a consumer holding its text (sanitize) lets it go.
		a.endAll(d)
	case "content_block_start":
		a.end(d, idx)
		id := d.open(a, idx)
		block := evp.Sub[eContentBlock].Out
		switch block[bType].String() {
		case "text":
			if block[bText].Type == gjson.String {
				d.out = append(d.out, provider.Delta{Block: id, Path: pathStartText, Kind: provider.DeltaText, Start: true})
			}
		case "thinking":
			if block[bThinking].Type == gjson.String {
				d.out = append(d.out, provider.Delta{Block: id, Path: pathStartThnk, Kind: provider.DeltaThinking, Start: true})
			}
		}
	case "content_block_stop":
		a.end(d, idx)
	case "content_block_delta":
		delta := evp.Sub[eDelta].Out
		var path []string
		var kind provider.DeltaKind
		var text gjson.Result
		switch delta[dType].String() {
		case "text_delta":
			path, kind, text = pathText, provider.DeltaText, delta[dText]
		case "thinking_delta":
			path, kind, text = pathThinking, provider.DeltaThinking, delta[dThinking]
		case "input_json_delta":
			path, kind, text = pathToolInput, provider.DeltaToolInput, delta[dPartialJSON]
		default:
			return nil
		}
		if text.Type != gjson.String {
			return nil
		}
		id, ok := a.blocks[idx]
		if !ok {
			id = d.open(a, idx)
		}
		d.out = append(d.out, provider.Delta{Block: id, Path: path, Kind: kind, Text: text.Str})
	}
	return d.out
}

// Ended implements provider.Deltas.
func (d *Deltas) Ended() []string { return d.ended }

func (d *Deltas) agent(parent string) *agentBlocks {
	a := d.agents[parent]
	if a == nil {
		parent = strings.Clone(parent)
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
