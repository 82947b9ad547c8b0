package codex_test

import (
	"fmt"
	"strings"

	"github.com/evcap/evcap/event"
	"github.com/evcap/evcap/normalize/codex"
)

// Real codex exec --json lines (codex-cli 0.171.0), cut before the turn ends.
const sample = `{"type":"thread.started","thread_id":"01a228c9-bc9f-7763-adc9-6edd40c1b2b5"}
{"type":"turn.started"}
{"type":"error","message":"Reconnecting... 1/2 (exceeded retry limit, last status: 429 Too Many Requests)"}
{"type":"item.started","item":{"id":"item_4","type":"command_execution","command":"/bin/bash -lc 'cat README.md'","aggregated_output":"","exit_code":null,"status":"in_progress"}}
{"type":"item.completed","item":{"id":"item_4","type":"command_execution","command":"/bin/bash -lc 'cat README.md'","aggregated_output":"# demo-project\n","exit_code":0,"status":"completed"}}
`

func ExampleNormalize() {
	evs, err := codex.Normalize(strings.NewReader(sample))
	if err != nil {
		panic(err)
	}
	for _, e := range evs {
		switch e.Kind {
		case event.KindTool:
			fmt.Printf("%s %s: %s %q\n", e.Kind, e.Phase, e.Tool.Name, e.Tool.Summary)
		case event.KindRetry:
			fmt.Printf("%s %s: %d/%d status %d\n", e.Kind, e.Phase, e.Retry.Attempt, e.Retry.MaxRetries, e.Retry.Status)
		case event.KindResult:
			fmt.Printf("%s %s: %s\n", e.Kind, e.Phase, e.Result.Subtype)
		default:
			fmt.Printf("%s %s\n", e.Kind, e.Phase)
		}
	}
	// Output:
	// init completed
	// status updated
	// retry updated: 1/2 status 429
	// tool completed: Bash "cat README.md"
	// tool_result completed
	// result failed: incomplete
}

func ExampleNewConverter() {
	c := codex.NewConverter(func(e event.Event) { fmt.Println(e.Kind, e.Phase) })
	// Bytes may arrive in any chunking; events come out per complete line.
	c.Write([]byte(`{"type":"turn.sta`))
	c.Write([]byte(`rted"}` + "\n" + `{"type":"turn.failed","error":{"message":"unexpected status 401"}}` + "\n"))
	c.Close()
	// Output:
	// status updated
	// error failed
	// result failed
}

func ExampleNormalizer_Classify() {
	c := codex.New().Classify([]byte(`{"id":"0","msg":{"type":"agent_message","message":"hi"}}`))
	fmt.Println(c.NativeType, c.Disposition)
	// Output: legacy/agent_message handled
}
