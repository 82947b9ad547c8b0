package replay

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/evcap/evcap/event"
	"github.com/tidwall/gjson"
)

// CumulativeLines returns lines with every native text and thinking delta
// rewritten to carry the whole text of its block so far instead of the next
// piece: the cumulative snapshots some Claude-compatible gateways and
// third-party models send. Nothing is re-split; other lines come back as
// they are (the same slices). A block is what the provider's normalizer
// accumulates: a Claude content block (per message and index, from its
// content_block_start text to its content_block_stop), a run of consecutive
// Gemini assistant deltas (user messages do not end it, any other JSON line
// does), an opencode part's field (per partID and field, until the text or
// reasoning part completes). Tool-input deltas are left alone.
//
// A normalizer reading the result with its CumulativeDeltas option on must
// give the events the original lines give.
func CumulativeLines(lines [][]byte) [][]byte {
	c := newCumulator()
	out := make([][]byte, len(lines))
	for i, l := range lines {
		out[i] = c.line(l)
	}
	return out
}

// cumulator holds the text so far of each open block while rewriting.
type cumulator struct {
	claudeMsg string
	claude    map[string]string // message id + "\x00" + index
	gemini    string            // the open run of assistant deltas
	opencode  map[string]map[string]string
}

func newCumulator() *cumulator {
	return &cumulator{claude: map[string]string{}, opencode: map[string]map[string]string{}}
}

// line rewrites one native line, updating the blocks' text so far.
func (c *cumulator) line(line []byte) []byte {
	if !gjson.ValidBytes(line) {
		return line // no normalizer counts it as part of a block
	}
	doc := gjson.ParseBytes(line)
	switch typ := doc.Get("type").String(); typ {
	case "stream_event":
		c.gemini = ""
		return c.claudeLine(line, doc)
	case "message":
		switch {
		case doc.Get("role").String() == "user":
			return line
		case doc.Get("role").String() == "assistant" && doc.Get("delta").Bool():
			v := doc.Get("content")
			if v.Type != gjson.String {
				return line
			}
			c.gemini += v.String()
			return withString(line, v, c.gemini)
		}
		c.gemini = ""
		return line
	case "message.part.delta":
		c.gemini = ""
		// Paths from the top, so that v.Index is an offset into line.
		v := doc.Get("properties.delta")
		if v.Type != gjson.String {
			return line
		}
		part, field := doc.Get("properties.partID").String(), doc.Get("properties.field").String()
		if c.opencode[part] == nil {
			c.opencode[part] = map[string]string{}
		}
		c.opencode[part][field] += v.String()
		return withString(line, v, c.opencode[part][field])
	case "message.part.updated":
		c.gemini = ""
		part := doc.Get("properties.part")
		pt := part.Get("type").String()
		if (pt == "text" || pt == "reasoning") && part.Get("time.end").Exists() {
			delete(c.opencode, part.Get("id").String())
		}
		return line
	}
	c.gemini = ""
	return line
}

// claudeLine follows Claude Code's content blocks as its normalizer does.
func (c *cumulator) claudeLine(line []byte, doc gjson.Result) []byte {
	e := doc.Get("event")
	key := c.claudeMsg + "\x00" + e.Get("index").String()
	switch e.Get("type").String() {
	case "message_start":
		c.claudeMsg = e.Get("message.id").String()
		clear(c.claude)
	case "content_block_start":
		cb := e.Get("content_block")
		switch cb.Get("type").String() {
		case "text":
			c.claude[key] = cb.Get("text").String()
		case "thinking":
			c.claude[key] = cb.Get("thinking").String()
		default:
			delete(c.claude, key)
		}
	case "content_block_stop":
		delete(c.claude, key)
	case "content_block_delta":
		// Paths from the top, so that v.Index is an offset into line.
		var v gjson.Result
		switch e.Get("delta.type").String() {
		case "text_delta":
			v = doc.Get("event.delta.text")
		case "thinking_delta":
			v = doc.Get("event.delta.thinking")
		}
		if v.Type != gjson.String {
			return line
		}
		c.claude[key] += v.String()
		return withString(line, v, c.claude[key])
	}
	return line
}

// withString returns line with the JSON string value v (found in line)
// replaced by s, encoded without HTML escaping.
func withString(line []byte, v gjson.Result, s string) []byte {
	if v.Index <= 0 || v.Index+len(v.Raw) > len(line) {
		return line
	}
	var b bytes.Buffer
	b.Grow(len(line) + len(s))
	b.Write(line[:v.Index])
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	b.Truncate(b.Len() - 1)
	b.Write(line[v.Index+len(v.Raw):])
	return b.Bytes()
}

// blockKey identifies the block a text or thinking delta belongs to.
type blockKey struct {
	kind                                   event.Kind
	session, turn, message, part, toolCall string
}

func keyOf(e event.Event) blockKey {
	return blockKey{e.Kind, e.SessionID, e.TurnID, e.MessageID, e.PartID, e.ToolCallID}
}

// firstDeltaDivergence returns the first text or thinking delta of got
// after which its block's text so far is no longer a beginning of that
// block's text in want, or nil. It points a mismatch at the native line
// whose delta first went wrong (the repeated text of a snapshot read as a
// piece), where the coalesced comparison can only name the whole block.
func firstDeltaDivergence(want, got []event.Event) *event.Event {
	isDelta := func(e event.Event) bool {
		return e.Phase == event.PhaseDelta && (e.Kind == event.KindText || e.Kind == event.KindThinking)
	}
	full := map[blockKey]*strings.Builder{}
	for _, e := range want {
		if isDelta(e) {
			k := keyOf(e)
			if full[k] == nil {
				full[k] = &strings.Builder{}
			}
			full[k].WriteString(e.Text)
		}
	}
	so := map[blockKey]*strings.Builder{}
	for i, e := range got {
		if !isDelta(e) {
			continue
		}
		k := keyOf(e)
		if so[k] == nil {
			so[k] = &strings.Builder{}
		}
		so[k].WriteString(e.Text)
		w := ""
		if full[k] != nil {
			w = full[k].String()
		}
		if !strings.HasPrefix(w, so[k].String()) {
			return &got[i]
		}
	}
	return nil
}
