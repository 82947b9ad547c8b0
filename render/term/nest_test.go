package term

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/evcap/evcap/event"
	"github.com/evcap/evcap/internal/corpustest"
	"github.com/sebdah/goldie/v2"
)

// extraDir holds real recordings of features the shared corpus lacks.
const extraDir = "../../testdata/corpus-extra"

// TestExtraGoldens renders the real subagent, hook, permission and rate
// limit recordings, plain and in colour at 60 columns. The subagent's
// work is indented under the tool call that started it.
func TestExtraGoldens(t *testing.T) {
	g := goldie.New(t, goldie.WithFixtureDir("testdata/extra"), goldie.WithNameSuffix(".golden"))
	files, _ := filepath.Glob(filepath.Join(extraDir, "*", "*.stdout.jsonl"))
	if len(files) == 0 {
		t.Fatal("no recordings in " + extraDir)
	}
	for _, file := range files {
		if corpustest.Provider(file) == "codex" {
			continue // another package's recordings; they have no nesting to show yet
		}
		name := goldenName(file)
		t.Run(name, func(t *testing.T) {
			evs := corpustest.Normalize(t, file)
			g.Assert(t, name+".term", []byte(visible(render(t, Options{}, evs...))))
			g.Assert(t, name+".term-color-w60", []byte(visible(render(t, Options{Color: true, Width: 60}, evs...))))
		})
	}
}

// TestSubagentIndent checks the nesting rule on a small stream: the
// subagent's lines are indented one step, a nested subagent's two, and the
// main agent's lines after it none.
func TestSubagentIndent(t *testing.T) {
	sub := &event.Agent{ID: "a1", Name: "explore"}
	evs := []event.Event{
		{Kind: event.KindTool, Phase: event.PhaseCompleted, ToolCallID: "t1", Tool: &event.Tool{Name: "Task", Summary: "look"}},
		{Kind: event.KindAgent, Phase: event.PhaseStarted, ParentToolCallID: "t1", Agent: &event.Agent{ID: "a1", Name: "explore", Description: "look"}},
		{Kind: event.KindText, Phase: event.PhaseCompleted, MessageID: "m2", PartID: "0", ParentToolCallID: "t1", Agent: sub, Text: "line one\nline two"},
		{Kind: event.KindTool, Phase: event.PhaseCompleted, ToolCallID: "t2", ParentToolCallID: "t1", Agent: sub, Tool: &event.Tool{Name: "Task", Summary: "deeper"}},
		{Kind: event.KindToolResult, Phase: event.PhaseCompleted, ToolCallID: "t3", ParentToolCallID: "t2", ToolResult: &event.ToolResult{OutputBytes: 3}},
		{Kind: event.KindToolResult, Phase: event.PhaseCompleted, ToolCallID: "t2", ParentToolCallID: "t1", ToolResult: &event.ToolResult{OutputBytes: 3}},
		{Kind: event.KindAgent, Phase: event.PhaseCompleted, ParentToolCallID: "t1", Agent: &event.Agent{ID: "a1", Name: "explore", Status: "completed"}},
		{Kind: event.KindAgent, Phase: event.PhaseCompleted, ParentToolCallID: "t1", Agent: &event.Agent{ID: "a1", Name: "explore", Status: "completed"}},
		{Kind: event.KindToolResult, Phase: event.PhaseCompleted, ToolCallID: "t1", ToolResult: &event.ToolResult{OutputBytes: 5}},
		{Kind: event.KindText, Phase: event.PhaseCompleted, MessageID: "m3", PartID: "0", Text: "done"},
	}
	got := render(t, Options{}, evs...)
	want := strings.Join([]string{
		"🤖 Task: look",
		"│ ⤷ explore: look",
		"│ line one",
		"│ line two",
		"│ 🤖 Task: deeper",
		"│ │   ✓ ok · 3 B",
		"│   ✓ ok · 3 B",
		"│ ⤶ explore completed",
		"  ✓ ok · 5 B",
		"done",
		"",
	}, "\n")
	if got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}
