package term_test

import (
	"fmt"
	"os"

	"github.com/evcap/evcap/event"
	"github.com/evcap/evcap/render/term"
)

func ExampleRenderer() {
	r := term.New(os.Stdout, term.Options{Width: 60})
	events := []event.Event{
		{Kind: event.KindInit, Phase: event.PhaseCompleted, Model: "claude-sonnet-4-5", Version: "2.1.197", SessionID: "6c66e7d7"},
		{Kind: event.KindThinking, Phase: event.PhaseDelta, MessageID: "m1", PartID: "0", Text: "The user wants "},
		{Kind: event.KindThinking, Phase: event.PhaseDelta, MessageID: "m1", PartID: "0", Text: "a file list."},
		{Kind: event.KindThinking, Phase: event.PhaseCompleted, MessageID: "m1", PartID: "0", Text: "The user wants a file list."},
		{Kind: event.KindTool, Phase: event.PhaseCompleted, ToolCallID: "t1", Tool: &event.Tool{Name: "Bash", Summary: "ls"}},
		{Kind: event.KindToolResult, Phase: event.PhaseCompleted, ToolCallID: "t1", ToolResult: &event.ToolResult{Output: "README.md\n", OutputBytes: 10}},
		{Kind: event.KindText, Phase: event.PhaseCompleted, MessageID: "m2", PartID: "0", Text: "The project holds one file, README.md."},
		{Kind: event.KindResult, Phase: event.PhaseCompleted, Result: &event.Result{NumTurns: 2, DurationMs: 1500, CostUSD: 0.0123}},
	}
	for _, e := range events {
		if err := r.Render(e); err != nil {
			fmt.Println(err)
		}
	}
	if err := r.Close(); err != nil {
		fmt.Println(err)
	}
	// Output:
	// ● claude-sonnet-4-5 · v2.1.197 · session 6c66e7d7
	// ∴ Thinking
	// The user wants a file list.
	// 🔧 Bash: ls
	//   ✓ ok · 10 B
	// The project holds one file, README.md.
	// ✔ done · 2 turns · 1.5s · $0.0123
}

func ExampleColorEnabled() {
	getenv := func(key string) string {
		if key == "NO_COLOR" {
			return "1"
		}
		return ""
	}
	auto, _ := term.ColorEnabled(term.ColorAuto, getenv, true)
	always, _ := term.ColorEnabled(term.ColorAlways, getenv, false)
	fmt.Println(auto, always)
	// Output: false true
}
