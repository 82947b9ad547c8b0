package opencode_test

import (
	"fmt"
	"strings"

	"github.com/evcap/evcap/event"
	"github.com/evcap/evcap/normalize/opencode"
)

func Example() {
	out := `{"type":"text","timestamp":1,"sessionID":"ses_1","part":{"id":"prt_1","messageID":"msg_1","sessionID":"ses_1","type":"text","text":"Hello.","time":{"start":1,"end":2}}}
{"type":"step_finish","timestamp":2,"sessionID":"ses_1","part":{"id":"prt_2","messageID":"msg_1","sessionID":"ses_1","type":"step-finish","reason":"stop","tokens":{"input":10,"output":2,"reasoning":0,"cache":{"read":0,"write":0}},"cost":0}}
`
	n := opencode.New()
	var evs []event.Event
	for i, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		evs = append(evs, n.Line(int64(i+1), []byte(line))...)
	}
	evs = append(evs, n.End()...)
	for _, e := range evs {
		fmt.Println(e.Kind, e.Phase, e.Cause)
	}
	// Output:
	// text completed [1]
	// usage updated [2]
	// usage updated [2]
	// result completed [2]
}

// The bus arrives as raw SSE or as one JSON payload per line; both work.
func ExampleNewConverter() {
	sse := "data: {\"id\":\"evt_1\",\"type\":\"session.status\",\"properties\":{\"sessionID\":\"ses_1\",\"status\":{\"type\":\"retry\",\"attempt\":1,\"message\":\"overloaded\",\"next\":0}}}\n\n"
	w := opencode.NewConverter(func(e event.Event) {
		fmt.Println(e.Kind, e.Phase, e.Cause)
	})
	fmt.Fprint(w, sse)
	w.Close()
	// Output:
	// retry updated [1]
	// result failed []
}
