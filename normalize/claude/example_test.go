package claude_test

import (
	"fmt"
	"strings"

	"github.com/evcap/evcap/event"
	"github.com/evcap/evcap/normalize/claude"
)

// Two lines of real Claude Code output (trimmed): the full assistant line
// of a tool call and its result.
const sample = `{"type":"assistant","message":{"id":"msg_01","model":"claude-sonnet-4-5-20250929","content":[{"type":"tool_use","id":"toolu_01","name":"Bash","input":{"command":"ls\n  -la","description":"Run: ls"}}],"usage":{"input_tokens":1200,"output_tokens":1}},"session_id":"s1"}
{"type":"user","message":{"role":"user","content":[{"tool_use_id":"toolu_01","type":"tool_result","content":"README.md","is_error":false}]},"session_id":"s1","tool_use_result":{"stdout":"README.md","stderr":""}}
`

func ExampleNormalize() {
	evs, err := claude.Normalize(strings.NewReader(sample))
	if err != nil {
		panic(err)
	}
	for _, e := range evs {
		switch e.Kind {
		case event.KindTool:
			fmt.Printf("%s %s: %s %q\n", e.Kind, e.Phase, e.Tool.Name, e.Tool.Summary)
		case event.KindToolResult:
			fmt.Printf("%s %s: %q\n", e.Kind, e.Phase, e.ToolResult.Output)
		default:
			fmt.Printf("%s %s\n", e.Kind, e.Phase)
		}
	}
	// Output:
	// usage updated
	// tool completed: Bash "ls -la"
	// tool_result completed: "README.md"
	// result failed
}

func ExampleNewConverter() {
	c := claude.NewConverter(func(e event.Event) {
		fmt.Printf("%s %s %q\n", e.Kind, e.Phase, e.Text)
	})
	// Bytes may arrive in any chunking; events come out per complete line.
	c.Write([]byte(`{"type":"stream_event","event":{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}}` + "\n" +
		`{"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hel`))
	c.Write([]byte(`lo"}}}` + "\n" + `{"type":"stream_event","event":{"type":"content_block_stop","index":0}}` + "\n" +
		`{"type":"result","subtype":"success","is_error":false,"num_turns":1,"result":"Hello"}` + "\n"))
	c.Close()
	// Output:
	// text started ""
	// text delta "Hello"
	// text completed "Hello"
	// result completed ""
}

func ExampleNormalizer_Classify() {
	n := claude.New()
	c := n.Classify([]byte(`{"type":"system","subtype":"thinking_tokens","estimated_tokens":4,"new_field":1}`))
	fmt.Println(c.NativeType, c.Disposition, c.UnknownFields)
	// Output: system/thinking_tokens ignored [new_field]
}
