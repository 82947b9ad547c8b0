package event_test

import (
	"testing"

	"github.com/evcap/evcap/event"
	"github.com/google/go-cmp/cmp"
)

// TestReadBlockReadsWhatAppendJSONWrites: the block view of an event's
// JSON, for every kind a block follower meets: text and thinking deltas
// (their piece decoded, escapes and all), completions, a result, and
// events of no block.
func TestReadBlockReadsWhatAppendJSONWrites(t *testing.T) {
	piece := "a \"quoted\" <b>\n\u2028 ünï"
	cases := []struct {
		ev   event.Event
		want event.BlockPiece
	}{
		{event.Event{Kind: event.KindText, Phase: event.PhaseDelta, MessageID: "m1", PartID: "0", Text: piece, Cause: []int64{3}},
			event.BlockPiece{Key: "text|m1|0", Phase: event.PhaseDelta, Text: piece, HasText: true}},
		{event.Event{Kind: event.KindThinking, Phase: event.PhaseDelta, MessageID: "m1", PartID: "1", Text: "hm"},
			event.BlockPiece{Key: "thinking|m1|1", Phase: event.PhaseDelta, Text: "hm", HasText: true}},
		{event.Event{Kind: event.KindText, Phase: event.PhaseCompleted, MessageID: "m1", PartID: "0", Text: "whole"},
			event.BlockPiece{Key: "text|m1|0", Phase: event.PhaseCompleted}},
		{event.Event{Kind: event.KindText, Phase: event.PhaseDelta, PartID: "2"},
			event.BlockPiece{Key: "text||2", Phase: event.PhaseDelta}},
		{event.Event{Kind: event.KindResult, Phase: event.PhaseCompleted, Result: &event.Result{Subtype: "success"}},
			event.BlockPiece{EndsAll: true}},
		{event.Event{Kind: event.KindTool, Phase: event.PhaseCompleted, ToolCallID: "t1", Tool: &event.Tool{Name: "Bash"}},
			event.BlockPiece{}},
		{event.Event{Kind: event.KindUsage, Phase: event.PhaseUpdated, Usage: &event.Usage{InputTokens: 1}},
			event.BlockPiece{}},
	}
	for _, c := range cases {
		b, err := event.AppendJSON(nil, &c.ev)
		if err != nil {
			t.Fatal(err)
		}
		js := string(b)
		if diff := cmp.Diff(c.want, event.ReadBlock(js)); diff != "" {
			t.Errorf("ReadBlock(%s) (-want +got):\n%s", js, diff)
		}
	}
}
