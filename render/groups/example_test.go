package groups_test

import (
	"fmt"
	"os"

	"github.com/evcap/evcap/event"
	"github.com/evcap/evcap/render/groups"
)

func ExampleAccumulator() {
	a := groups.New()
	for _, e := range []event.Event{
		{Kind: event.KindText, Phase: event.PhaseDelta, MessageID: "m1", PartID: "0", Text: "Listing "},
		{Kind: event.KindText, Phase: event.PhaseDelta, MessageID: "m1", PartID: "0", Text: "files."},
		{Kind: event.KindText, Phase: event.PhaseCompleted, MessageID: "m1", PartID: "0", Text: "Listing files."},
		{Kind: event.KindTool, Phase: event.PhaseCompleted, MessageID: "m1", ToolCallID: "t1", Tool: &event.Tool{Name: "Bash", Summary: "ls"}},
		{Kind: event.KindToolResult, Phase: event.PhaseCompleted, ToolCallID: "t1", ToolResult: &event.ToolResult{Output: "README.md", OutputBytes: 9}},
	} {
		a.Add(e)
	}
	if err := a.Run().WriteJSON(os.Stdout); err != nil {
		fmt.Println(err)
	}
	// Output:
	// {
	//   "messages": [
	//     {
	//       "id": "m1",
	//       "blocks": [
	//         {
	//           "type": "text",
	//           "id": "0",
	//           "text": "Listing files.",
	//           "deltas": 2,
	//           "completed": true
	//         },
	//         {
	//           "type": "tool",
	//           "id": "t1",
	//           "completed": true,
	//           "tool": {
	//             "name": "Bash",
	//             "summary": "ls",
	//             "status": "completed",
	//             "result": "README.md",
	//             "resultBytes": 9
	//           }
	//         }
	//       ]
	//     }
	//   ]
	// }
}
