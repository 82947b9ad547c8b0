package providers_test

import (
	"fmt"

	"github.com/evcap/evcap/providers"
)

func ExampleDetect() {
	line := []byte(`{"type":"thread.started","thread_id":"01a228c9-d381-7b30-b32b-fc213b270a0f"}`)
	d, format, ok := providers.Detect(line)
	fmt.Println(d.Name, format, ok, d.CLI, d.System)
	// Output: codex exec-json true codex openai
}

func ExampleLookup() {
	d, ok := providers.Lookup("claude")
	if !ok {
		return
	}
	tr := d.Deltas()
	for _, line := range []string{
		`{"type":"stream_event","event":{"type":"message_start","message":{"id":"msg_1"}},"session_id":"s","parent_tool_use_id":null}`,
		`{"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hello"}},"session_id":"s","parent_tool_use_id":null}`,
		`{"type":"stream_event","event":{"type":"content_block_stop","index":0},"session_id":"s","parent_tool_use_id":null}`,
	} {
		for _, piece := range tr.Line([]byte(line)) {
			_, _, text, _ := piece.Locate([]byte(line))
			fmt.Printf("%s piece %q at %v\n", piece.Kind, text, piece.Path)
		}
		if ended := tr.Ended(); len(ended) > 0 {
			fmt.Println("ended", len(ended), "block")
		}
	}
	// Output:
	// text piece "Hello" at [event delta text]
	// ended 1 block
}

// A hint for a user whose agent printed plain text, as record gives it.
func ExampleJSONCommands() {
	fmt.Printf("is the agent's JSON output switched on (%s)?\n", providers.JSONCommands())
	// Output: is the agent's JSON output switched on (claude --output-format stream-json --verbose, codex exec --json, gemini --output-format stream-json, opencode run --format json)?
}
