package groups

import (
	"bytes"
	"strings"
	"testing"

	"github.com/evcap/evcap/event"
	"github.com/evcap/evcap/internal/corpustest"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/sebdah/goldie/v2"
)

func fold(evs ...event.Event) *Run {
	a := New()
	for _, e := range evs {
		a.Add(e)
	}
	return a.Run()
}

func txt(kind event.Kind, phase event.Phase, msg, part, s string) event.Event {
	return event.Event{Kind: kind, Phase: phase, MessageID: msg, PartID: part, Text: s}
}

var ignoreInternal = cmpopts.IgnoreUnexported(Block{})

func TestReconcile(t *testing.T) {
	tests := []struct {
		reason string
		evs    []event.Event
		want   []*Block
	}{
		{
			reason: "deltas then the same completed text: one block, no mismatch",
			evs: []event.Event{
				txt(event.KindText, event.PhaseStarted, "m", "0", ""),
				txt(event.KindText, event.PhaseDelta, "m", "0", "Hel"), txt(event.KindText, event.PhaseDelta, "m", "0", "lo"),
				txt(event.KindText, event.PhaseCompleted, "m", "0", "Hello"),
			},
			want: []*Block{{Type: TypeText, ID: "0", Text: "Hello", Deltas: 2, Completed: true}},
		},
		{
			reason: "completed text differs from the deltas (a duplication bug): completed text kept, flagged",
			evs: []event.Event{
				txt(event.KindText, event.PhaseDelta, "m", "0", "Hello"), txt(event.KindText, event.PhaseDelta, "m", "0", "Hello"),
				txt(event.KindText, event.PhaseCompleted, "m", "0", "Hello"),
			},
			want: []*Block{{Type: TypeText, ID: "0", Text: "Hello", Deltas: 2, Completed: true, Mismatch: true}},
		},
		{
			reason: "a second completed event for the same block is a new block, so the duplicate shows",
			evs: []event.Event{
				txt(event.KindText, event.PhaseCompleted, "m", "0", "Hi"), txt(event.KindText, event.PhaseCompleted, "m", "0", "Hi"),
			},
			want: []*Block{{Type: TypeText, ID: "0", Text: "Hi", Completed: true}, {Type: TypeText, ID: "0", Text: "Hi", Completed: true}},
		},
		{
			reason: "thinking and text keep their order; an empty delta creates nothing",
			evs: []event.Event{
				txt(event.KindThinking, event.PhaseDelta, "m", "0", ""),
				txt(event.KindThinking, event.PhaseDelta, "m", "0", "hmm"),
				txt(event.KindText, event.PhaseDelta, "m", "1", "ok"),
				txt(event.KindThinking, event.PhaseCompleted, "m", "0", "hmm"),
			},
			want: []*Block{
				{Type: TypeThinking, ID: "0", Text: "hmm", Deltas: 1, Completed: true},
				{Type: TypeText, ID: "1", Text: "ok", Deltas: 1},
			},
		},
	}
	for _, tc := range tests {
		run := fold(tc.evs...)
		if len(run.Messages) != 1 {
			t.Errorf("%s: %d messages, want 1", tc.reason, len(run.Messages))
			continue
		}
		if d := cmp.Diff(tc.want, run.Messages[0].Blocks, ignoreInternal); d != "" {
			t.Errorf("%s (-want +got):\n%s", tc.reason, d)
		}
	}
}

func TestGroupingAndTools(t *testing.T) {
	run := fold([]event.Event{
		{Kind: event.KindInit, Phase: event.PhaseCompleted, SessionID: "s", Model: "m1"},
		txt(event.KindText, event.PhaseCompleted, "", "", "no id yet"),
		{Kind: event.KindTool, Phase: event.PhaseStarted, MessageID: "msg1", ToolCallID: "t1", Tool: &event.Tool{Name: "Bash"}},
		txt(event.KindText, event.PhaseCompleted, "", "", "joins msg1"),
		{Kind: event.KindTool, Phase: event.PhaseCompleted, MessageID: "msg1", ToolCallID: "t1", Tool: &event.Tool{Name: "Bash", Summary: "ls"}},
		{Kind: event.KindTool, Phase: event.PhaseCompleted, MessageID: "msg1", ToolCallID: "t2", Tool: &event.Tool{Name: "Read", Summary: "x"}},
		{Kind: event.KindTool, Phase: event.PhaseCompleted, MessageID: "msg2", ToolCallID: "t3", Tool: &event.Tool{Name: "Bash", Summary: "false"}},
		{Kind: event.KindToolResult, Phase: event.PhaseCompleted, MessageID: "user", ToolCallID: "t1", ToolResult: &event.ToolResult{Output: strings.Repeat("é", 250), OutputBytes: 500}},
		{Kind: event.KindToolResult, Phase: event.PhaseFailed, ToolCallID: "t3", ToolResult: &event.ToolResult{IsError: true, Output: "exit 1"}},
		{Kind: event.KindUsage, Phase: event.PhaseUpdated, MessageID: "msg1", Usage: &event.Usage{InputTokens: 100, OutputTokens: 1}},
		{Kind: event.KindUsage, Phase: event.PhaseUpdated, MessageID: "msg1", Usage: &event.Usage{InputTokens: 100, OutputTokens: 50}},
		{Kind: event.KindUsage, Phase: event.PhaseUpdated, MessageID: "msg2", Usage: &event.Usage{InputTokens: 200, OutputTokens: 10}},
		{Kind: event.KindResult, Phase: event.PhaseCompleted, Result: &event.Result{NumTurns: 2, Text: "done"}},
	}...)
	var b bytes.Buffer
	if err := run.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	goldie.New(t).Assert(t, "synthetic-grouping", b.Bytes())
	if got := run.Messages[1].Blocks[0].Tool.Status; got != StatusCompleted {
		t.Errorf("t1 status %q, want completed", got)
	}
	if got := run.Messages[1].Blocks[2].Tool.Status; got != StatusRunning {
		t.Errorf("t2 (no result) status %q, want running: a stuck tool must stay visible", got)
	}
	if got := run.Messages[2].Blocks[0].Tool.Status; got != StatusFailed {
		t.Errorf("t3 status %q, want failed", got)
	}
	if run.Usage.Total != 360 {
		t.Errorf("usage total %d, want 360 (msg1's second report replaces its first)", run.Usage.Total)
	}
}

// TestCorpusGoldens folds every corpus capture (stdout JSONL, and
// opencode's raw SSE) after normalizing it line by line.
func TestCorpusGoldens(t *testing.T) {
	g := goldie.New(t, goldie.WithFixtureDir("testdata/corpus"), goldie.WithNameSuffix(".groups.golden"))
	for _, file := range corpustest.NativeFiles(t) {
		name := corpustest.Provider(file) + "/" + corpustest.Base(file)
		t.Run(name, func(t *testing.T) {
			a := New()
			for _, e := range corpustest.Normalize(t, file) {
				a.Add(e)
			}
			for _, m := range a.Run().Messages {
				for _, b := range m.Blocks {
					if b.Mismatch {
						t.Errorf("message %s block %s: completed text differs from its deltas", m.ID, b.ID)
					}
				}
			}
			var b bytes.Buffer
			if err := a.Run().WriteJSON(&b); err != nil {
				t.Fatal(err)
			}
			g.Assert(t, name, b.Bytes())
		})
	}
}
