package replay

import (
	"slices"
	"strings"

	"github.com/evcap/evcap/event"
	"github.com/evcap/evcap/provider"
)

// CumulativeLines returns lines with every native text and thinking delta
// rewritten to carry the whole text of its block so far instead of the next
// piece: the cumulative snapshots some Claude-compatible gateways and
// third-party models send. Nothing is re-split; other lines come back as
// they are (the same slices). The provider is the one whose format the
// lines are in (providers.DetectStream); lines of no known provider come
// back as they are.
func CumulativeLines(lines [][]byte) [][]byte {
	d, ok := detected(lines)
	if !ok {
		return slices.Clone(lines)
	}
	return CumulativeLinesOf(d, lines)
}

// CumulativeLinesOf is CumulativeLines for lines printed by the provider
// d. A block is what d's Deltas tracker says it is (the text its
// normalizer accumulates: for Claude a content block of one agent, from its
// content_block_start text to its content_block_stop); tool-input pieces
// are left alone.
//
// A normalizer of d reading the result with its CumulativeDeltas option on
// must give the events the original lines give.
func CumulativeLinesOf(d provider.Descriptor, lines [][]byte) [][]byte {
	if !d.ReadsCumulative {
		// Its normalizer cannot read snapshots: rewriting its deltas would
		// make a replay fail that the user's code never saw fail.
		return slices.Clone(lines)
	}
	tr := d.Deltas()
	sofar := map[string]string{}
	out := make([][]byte, len(lines))
	for i, l := range lines {
		ds := tr.Line(l)
		for _, b := range tr.Ended() {
			delete(sofar, b)
		}
		out[i] = l
		for _, x := range ds {
			if x.Kind != provider.DeltaText && x.Kind != provider.DeltaThinking {
				continue
			}
			_, _, text, ok := x.Locate(out[i])
			if !ok {
				continue
			}
			if x.Start {
				sofar[x.Block] = text
				continue
			}
			sofar[x.Block] += text
			out[i] = x.Replace(out[i], sofar[x.Block])
		}
	}
	return out
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
