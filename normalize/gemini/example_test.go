package gemini_test

import (
	"fmt"

	"github.com/evcap/evcap/event"
	"github.com/evcap/evcap/normalize/gemini"
)

func ExampleNewConverter() {
	out := `{"type":"init","timestamp":"2026-11-29T19:32:10.391Z","session_id":"s1","model":"gemini-2.5-pro"}
{"type":"message","timestamp":"2026-11-29T19:32:28.258Z","role":"assistant","content":"Hel","delta":true}
{"type":"message","timestamp":"2026-11-29T19:32:28.261Z","role":"assistant","content":"lo.","delta":true}
{"type":"result","timestamp":"2026-11-29T19:32:28.282Z","status":"success","stats":{"input_tokens":10,"output_tokens":2}}
`
	w := gemini.NewConverter(func(e event.Event) {
		fmt.Printf("%s %s %q %v\n", e.Kind, e.Phase, e.Text, e.Cause)
	})
	fmt.Fprint(w, out)
	w.Close()
	// Output:
	// init completed "" [1]
	// text started "" [2]
	// text delta "Hel" [2]
	// text delta "lo." [3]
	// text completed "Hello." [2 3]
	// usage updated "" [4]
	// result completed "" [4]
}
