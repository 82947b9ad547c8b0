package legacy_test

import (
	"fmt"

	"github.com/evcap/evcap/event"
	"github.com/evcap/evcap/render/legacy"
)

func ExampleDerive() {
	evs := []event.Event{
		{Kind: event.KindInit, Phase: event.PhaseCompleted, SessionID: "ses_1", Cause: []int64{1}},
		{Kind: event.KindText, Phase: event.PhaseDelta, MessageID: "m1", Text: "Hel", Cause: []int64{2}},
		{Kind: event.KindText, Phase: event.PhaseDelta, MessageID: "m1", Text: "lo", Cause: []int64{3}},
		{Kind: event.KindText, Phase: event.PhaseCompleted, MessageID: "m1", Text: "Hello", Cause: []int64{2, 3}},
		{Kind: event.KindResult, Phase: event.PhaseCompleted, Result: &event.Result{Subtype: "success"}, Cause: []int64{4}},
	}
	for _, m := range legacy.Derive(evs) {
		fmt.Println(m.Line, m.From, m.Cause)
	}
	// Output:
	// [STREAM_START] [0] [1]
	// [SESSION_ID] ses_1 [0] [1]
	// [MESSAGE_START] [1] [2]
	// [CONTENT_DELTA] "Hel" [1] [2]
	// [CONTENT_DELTA] "lo" [2] [3]
	// [MESSAGE_END] [4] [4]
	// [STREAM_END] [] []
}
