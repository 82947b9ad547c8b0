package event

import "github.com/tidwall/gjson"

// BlockPiece is what one normalized event says of the streamed text block
// it belongs to, as ReadBlock reads it from the event's JSON: the one
// reading of a normalized_out record that the capture's block followers
// (sanitize, which redacts a secret split across deltas, and scan, which
// checks for one) share, so that both put the same pieces together.
type BlockPiece struct {
	// Key names the block: the kind (text or thinking), message id and
	// part id, joined by "|". Empty for an event of no block.
	Key   string
	Phase Phase
	// Text is a delta's piece, HasText whether the delta carries one
	// (a JSON string).
	Text    string
	HasText bool
	// EndsAll is set for a result, which ends every block.
	EndsAll bool
}

// ReadBlock reads the JSON js of one normalized event (AppendJSON's
// form) for its streamed block: a text or thinking event gives its block's
// key and phase, and a delta its piece; a result gives EndsAll; any other
// event, the zero BlockPiece. The strings are views of js or copies gjson
// made (a piece with escapes).
func ReadBlock(js string) BlockPiece {
	k := gjson.Get(js, "kind").String()
	switch Kind(k) {
	case KindResult:
		return BlockPiece{EndsAll: true}
	case KindText, KindThinking:
	default:
		return BlockPiece{}
	}
	p := BlockPiece{Key: k + "|" + gjson.Get(js, "messageId").String() + "|" + gjson.Get(js, "partId").String(),
		Phase: Phase(gjson.Get(js, "phase").String())}
	if p.Phase == PhaseDelta {
		if t := gjson.Get(js, "text"); t.Type == gjson.String {
			p.Text, p.HasText = t.String(), true
		}
	}
	return p
}
