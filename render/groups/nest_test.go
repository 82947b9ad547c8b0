package groups

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/evcap/evcap/event"
	"github.com/evcap/evcap/internal/corpustest"
	"github.com/sebdah/goldie/v2"
)

// TestExtraGoldens groups the real corpus-extra recordings. In the
// subagent runs the subagent's messages sit inside the Agent tool block.
func TestExtraGoldens(t *testing.T) {
	g := goldie.New(t, goldie.WithFixtureDir("testdata/extra"), goldie.WithNameSuffix(".groups.golden"))
	files, _ := filepath.Glob("../../testdata/corpus-extra/*/*.stdout.jsonl")
	if len(files) == 0 {
		t.Fatal("no recordings in testdata/corpus-extra")
	}
	for _, file := range files {
		if corpustest.Provider(file) == "codex" {
			continue // another package's recordings
		}
		name := corpustest.Provider(file) + "/" + corpustest.Base(file)
		t.Run(name, func(t *testing.T) {
			a := New()
			for _, e := range corpustest.Normalize(t, file) {
				a.Add(e)
			}
			var b bytes.Buffer
			if err := a.Run().WriteJSON(&b); err != nil {
				t.Fatal(err)
			}
			g.Assert(t, name, b.Bytes())
		})
	}
}

// TestSubagentNesting checks where a subagent's work goes: into the tool
// block that started it, not among the run's messages; its result still
// reaches its own tool block; agent events name the subagent.
func TestSubagentNesting(t *testing.T) {
	a := New()
	for _, e := range []event.Event{
		{Kind: event.KindTool, Phase: event.PhaseCompleted, MessageID: "m1", ToolCallID: "t1", Tool: &event.Tool{Name: "Task", Summary: "look"}},
		{Kind: event.KindAgent, Phase: event.PhaseStarted, ParentToolCallID: "t1", Agent: &event.Agent{ID: "a1", Name: "explore", Description: "look", Status: "running"}},
		{Kind: event.KindTool, Phase: event.PhaseCompleted, MessageID: "m2", ToolCallID: "t2", ParentToolCallID: "t1", Tool: &event.Tool{Name: "Bash", Summary: "ls"}},
		{Kind: event.KindToolResult, Phase: event.PhaseCompleted, ToolCallID: "t2", ParentToolCallID: "t1", ToolResult: &event.ToolResult{Output: "x", OutputBytes: 1}},
		{Kind: event.KindAgent, Phase: event.PhaseCompleted, ParentToolCallID: "t1", Agent: &event.Agent{ID: "a1", Status: "completed"}},
		{Kind: event.KindToolResult, Phase: event.PhaseCompleted, ToolCallID: "t1", ToolResult: &event.ToolResult{Output: "done", OutputBytes: 4}},
		{Kind: event.KindText, Phase: event.PhaseCompleted, MessageID: "m3", PartID: "0", Text: "answer"},
	} {
		a.Add(e)
	}
	r := a.Run()
	if len(r.Messages) != 2 || r.Messages[0].ID != "m1" || r.Messages[1].ID != "m3" {
		t.Fatalf("run messages: %+v, want m1 and m3 only", r.Messages)
	}
	task := r.Messages[0].Blocks[0].Tool
	sa := task.Subagent
	if sa == nil || sa.ID != "a1" || sa.Name != "explore" || sa.Description != "look" || sa.Status != "completed" {
		t.Fatalf("subagent = %+v", sa)
	}
	if len(sa.Messages) != 1 || sa.Messages[0].ID != "m2" || sa.Messages[0].Blocks[0].Tool.Status != StatusCompleted {
		t.Errorf("subagent messages = %+v", sa.Messages)
	}
	if task.Status != StatusCompleted || task.Result != "done" {
		t.Errorf("task block = %+v", task)
	}
}
