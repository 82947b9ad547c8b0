package capture_test

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strings"

	"github.com/evcap/evcap/capture"
	"github.com/evcap/evcap/envelope"
	"github.com/evcap/evcap/event"
)

// An integration wraps its reader of the agent's stdout and its event
// callback; the rest of its code is unchanged. With EVCAP_CAPTURE unset,
// capture.FromEnv returns nil and the wrappers return their arguments.
func Example() {
	var file bytes.Buffer
	c := capture.New(envelope.NewWriter(&file, envelope.WriterOptions{CaptureID: "01JDXKQ5T8M3V9ZQ7G2H4N6P8R"}),
		capture.Options{Provider: "codex"})

	agentStdout := strings.NewReader(`{"type":"thread.started","thread_id":"t1"}` + "\n")
	onEvent := c.WrapEvents(func(e event.Event) { fmt.Println("integration got", e.Kind) })

	sc := bufio.NewReader(c.WrapReader(agentStdout))
	for {
		line, err := sc.ReadString('\n')
		if err != nil {
			break
		}
		if strings.Contains(line, "thread.started") {
			onEvent(event.Event{Kind: event.KindInit, Phase: event.PhaseCompleted, SessionID: "t1"})
		}
	}
	_ = c.Close(capture.End{CleanEnd: true})

	rd := envelope.NewReader(&file, "capture", envelope.ReaderOptions{})
	for {
		rec, err := rd.Next()
		if err != nil {
			break
		}
		fmt.Println(rec.Sequence, rec.Stage, rec.EventType, rec.Cause)
	}
	_ = os.Stdout.Sync()
	// Output:
	// integration got init
	// 1 native_in thread.started []
	// 2 normalized_out init [1]
	// 3 meta capture.end []
}
