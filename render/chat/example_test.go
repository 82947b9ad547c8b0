package chat_test

import (
	"fmt"
	"os"
	"time"

	"github.com/evcap/evcap/event"
	"github.com/evcap/evcap/render/chat"
)

func ExampleMessage() {
	start := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	at := func(ms int) time.Time { return start.Add(time.Duration(ms) * time.Millisecond) }

	m := chat.New(chat.Options{}) // one edit per second at most
	var ops []chat.Op
	ops = append(ops, m.Handle(at(0), event.Event{Kind: event.KindInit, Phase: event.PhaseCompleted})...)
	ops = append(ops, m.Handle(at(100), event.Event{Kind: event.KindTool, Phase: event.PhaseCompleted, ToolCallID: "1",
		Tool: &event.Tool{Name: "Bash", Summary: "ls -la"}})...)
	ops = append(ops, m.Handle(at(400), event.Event{Kind: event.KindTool, Phase: event.PhaseCompleted, ToolCallID: "2",
		Tool: &event.Tool{Name: "Read", Summary: "main.go"}})...)
	ops = append(ops, m.Handle(at(2000), event.Event{Kind: event.KindText, Phase: event.PhaseCompleted,
		Text: "`main.go` prints **hello**."})...)
	ops = append(ops, m.Close(at(2100))...)
	if err := chat.WriteJSONL(os.Stdout, ops); err != nil {
		fmt.Println(err)
	}
	// Output:
	// {"op":"send","at":0,"text":"⏳ Working…"}
	// {"op":"edit","at":100,"text":"🔧 Bash: ls -la"}
	// {"op":"edit","at":2000,"text":"📖 Read: main.go"}
	// {"op":"edit","at":3000,"text":"`main.go` prints **hello**.","final":true}
}
