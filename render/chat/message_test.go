package chat

import (
	"bytes"
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/evcap/evcap/event"
	"github.com/google/go-cmp/cmp"
)

var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// timed is an event and when it happened, in ms after t0.
type timed struct {
	ms int
	e  event.Event
}

func run(opts Options, closeMs int, evs ...timed) []Op {
	m := New(opts)
	var ops []Op
	for _, te := range evs {
		ops = append(ops, m.Handle(t0.Add(time.Duration(te.ms)*time.Millisecond), te.e)...)
	}
	return append(ops, m.Close(t0.Add(time.Duration(closeMs)*time.Millisecond))...)
}

// brief is an op as "kind@ms:text[!]" (! marks the final), for compact diffs.
func brief(ops []Op) []string {
	var out []string
	for _, o := range ops {
		s := string(o.Kind) + "@" + itoa(o.At.Milliseconds()) + ":" + o.Text
		if o.Final {
			s += "!"
		}
		out = append(out, s)
	}
	return out
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

func tool(id, name, summary string) event.Event {
	return event.Event{Kind: event.KindTool, Phase: event.PhaseCompleted, ToolCallID: id,
		Tool: &event.Tool{Name: name, Summary: summary, Input: []byte(`{"command":"secret"}`)}}
}

func text(phase event.Phase, msg, part, s string) event.Event {
	return event.Event{Kind: event.KindText, Phase: phase, MessageID: msg, PartID: part, Text: s}
}

func result(isErr bool, s string) event.Event {
	return event.Event{Kind: event.KindResult, Phase: event.PhaseCompleted, Result: &event.Result{IsError: isErr, Text: s}}
}

func TestRateLimitTenToolsIn200ms(t *testing.T) {
	var evs []timed
	evs = append(evs, timed{0, event.Event{Kind: event.KindInit, Phase: event.PhaseCompleted}})
	for i := range 10 {
		evs = append(evs, timed{i * 20, tool(string(rune('a'+i)), "Bash", "step "+string(rune('0'+i)))})
	}
	evs = append(evs, timed{190, text(event.PhaseCompleted, "m", "0", "All done.")})
	got := brief(run(Options{}, 200, evs...))
	want := []string{
		"send@0:⏳ Working…",
		"edit@0:🔧 Bash: step 0",
		"edit@1000:All done.!",
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("10 tools in 200 ms must give one edit plus the final (-want +got):\n%s", d)
	}
}

func TestCoalescing(t *testing.T) {
	tests := []struct {
		reason  string
		opts    Options
		closeMs int
		evs     []timed
		want    []string
	}{
		{
			reason:  "states within the interval wait; the latest is flushed by the next event after the interval",
			closeMs: 3000,
			evs: []timed{
				{0, tool("a", "Bash", "one")},
				{300, tool("b", "Read", "two.go")},
				{600, tool("c", "Grep", "three")},
				{1200, text(event.PhaseDelta, "m", "0", "partial")},
				{1300, text(event.PhaseCompleted, "m", "0", "partial answer")},
			},
			want: []string{"send@0:⏳ Working…", "edit@0:🔧 Bash: one", "edit@1200:🔍 Grep: three", "edit@3000:partial answer!"},
		},
		{
			reason:  "a custom interval; the final is due when the interval after the last edit ends",
			opts:    Options{Interval: 100 * time.Millisecond},
			closeMs: 150,
			evs: []timed{
				{0, tool("a", "Bash", "one")},
				{50, tool("b", "Bash", "two")},
				{120, tool("c", "Bash", "three")},
			},
			want: []string{"send@0:⏳ Working…", "edit@0:🔧 Bash: one", "edit@120:🔧 Bash: three", "edit@220:✅ Done.!"},
		},
		{
			reason:  "text deltas never edit; a repeated tool id and an unchanged state do not edit",
			closeMs: 5000,
			evs: []timed{
				{0, text(event.PhaseDelta, "m", "0", "a")},
				{2000, text(event.PhaseDelta, "m", "0", "b")},
				{2500, tool("a", "Bash", "ls")},
				{4000, tool("a", "Bash", "ls")},
			},
			want: []string{"send@0:⏳ Working…", "edit@2500:🔧 Bash: ls", "edit@5000:ab!"},
		},
		{
			reason:  "a pending state is dropped at close: the final answer replaces it",
			closeMs: 500,
			evs:     []timed{{0, tool("a", "Bash", "one")}, {100, tool("b", "Bash", "two")}, {200, result(false, "Result text.")}},
			want:    []string{"send@0:⏳ Working…", "edit@0:🔧 Bash: one", "edit@1000:Result text.!"},
		},
		{
			reason:  "close with no event sends the final answer directly",
			closeMs: 10,
			want:    []string{"send@0:✅ Done.!"},
		},
	}
	for _, tc := range tests {
		got := brief(run(tc.opts, tc.closeMs, tc.evs...))
		if d := cmp.Diff(tc.want, got); d != "" {
			t.Errorf("%s (-want +got):\n%s", tc.reason, d)
		}
	}
}

func TestTick(t *testing.T) {
	m := New(Options{})
	m.Handle(t0, tool("a", "Bash", "one"))
	m.Handle(t0.Add(200*time.Millisecond), tool("b", "Bash", "two"))
	if ops := m.Tick(t0.Add(999 * time.Millisecond)); len(ops) != 0 {
		t.Errorf("Tick before the interval: got %v, want nothing", brief(ops))
	}
	got := brief(m.Tick(t0.Add(1000 * time.Millisecond)))
	if d := cmp.Diff([]string{"edit@1000:🔧 Bash: two"}, got); d != "" {
		t.Errorf("Tick at the interval (-want +got):\n%s", d)
	}
	if ops := m.Tick(t0.Add(5 * time.Second)); len(ops) != 0 {
		t.Errorf("Tick with nothing waiting: got %v", brief(ops))
	}
}

func TestFinalAnswer(t *testing.T) {
	tests := []struct {
		reason string
		evs    []timed
		want   string
	}{
		{"text after the last tool is the answer; commentary before it is not",
			[]timed{{0, text(event.PhaseCompleted, "m1", "0", "Let me look.")}, {1, tool("a", "Bash", "ls")},
				{2, text(event.PhaseCompleted, "m2", "0", "It holds **one** file.")}, {3, result(false, "ignored")}},
			"It holds **one** file."},
		{"deltas then completed do not duplicate",
			[]timed{{0, text(event.PhaseDelta, "m", "0", "Hel")}, {1, text(event.PhaseDelta, "m", "0", "lo")}, {2, text(event.PhaseCompleted, "m", "0", "Hello")}},
			"Hello"},
		{"commentary of an earlier message reported after its tool call is left out",
			[]timed{{0, tool("a", "Read", "x")}, {1, text(event.PhaseCompleted, "m2", "0", "Now I'll read it.")},
				{2, text(event.PhaseCompleted, "m3", "0", "Summary.")}},
			"Summary."},
		{"two text blocks are joined by a blank line",
			[]timed{{0, text(event.PhaseCompleted, "m", "0", "One.")}, {1, text(event.PhaseCompleted, "m", "1", "Two.")}},
			"One.\n\nTwo."},
		{"no text after the last tool: the result text",
			[]timed{{0, text(event.PhaseCompleted, "m", "0", "Let me look.")}, {1, tool("a", "Bash", "ls")}, {2, result(false, "Summary.")}},
			"Summary."},
		{"no text after the last tool and no result text: the last text",
			[]timed{{0, text(event.PhaseCompleted, "m", "0", "Let me look.")}, {1, tool("a", "Bash", "ls")}},
			"Let me look."},
		{"a fatal error wins over text",
			[]timed{{0, text(event.PhaseCompleted, "m", "0", "Hi")},
				{1, event.Event{Kind: event.KindError, Phase: event.PhaseFailed, Error: &event.Error{Message: "401\nInvalid key", Fatal: true}}},
				{2, result(true, "API Error: 401")}},
			"❌ Error: 401 Invalid key"},
		{"a failed result without an error event gives its text",
			[]timed{{0, result(true, "API Error: 400 bad request")}},
			"❌ Error: API Error: 400 bad request"},
		{"a non-fatal error does not fail the run",
			[]timed{{0, event.Event{Kind: event.KindError, Phase: event.PhaseFailed, Error: &event.Error{Message: "metadata missing"}}},
				{1, text(event.PhaseCompleted, "m", "0", "Fine.")}},
			"Fine."},
		{"control characters are removed",
			[]timed{{0, text(event.PhaseCompleted, "m", "0", "a\x1b[31mb\x07c\nd")}},
			"a[31mbc\nd"},
	}
	for _, tc := range tests {
		ops := run(Options{}, 10_000, tc.evs...)
		last := ops[len(ops)-1]
		if !last.Final || last.Text != tc.want {
			t.Errorf("%s: final op %+v, want text %q", tc.reason, last, tc.want)
		}
	}
}

func TestToolStatus(t *testing.T) {
	long := strings.Repeat("x", 100)
	tests := []struct {
		e    event.Event
		want string
	}{
		{tool("1", "Bash", "ls -la"), "🔧 Bash: ls -la"},
		{tool("2", "Read", "main.go"), "📖 Read: main.go"},
		{tool("3", "Edit", "main.go"), "✏️ Edit: main.go"},
		{tool("4", "Grep", "TODO"), "🔍 Grep: TODO"},
		{tool("5", "Bash", "echo one\necho two"), "🔧 Bash: echo one echo two"},
		{tool("6", "Bash", long), "🔧 Bash: " + strings.Repeat("x", 79) + "…"},
		{tool("7", "Bash", strings.Repeat("👨‍👩‍👧", 81)), "🔧 Bash: " + strings.Repeat("👨‍👩‍👧", 79) + "…"},
	}
	for _, tc := range tests {
		ops := New(Options{Interval: time.Nanosecond}).Handle(t0, tc.e)
		if len(ops) != 2 || ops[1].Text != tc.want {
			t.Errorf("%q: got %v, want edit %q", tc.e.Tool.Summary, brief(ops), tc.want)
		}
		if strings.Contains(ops[len(ops)-1].Text, "secret") {
			t.Errorf("tool input leaked into %q", ops[1].Text)
		}
	}
}

func TestWriteJSONL(t *testing.T) {
	var b bytes.Buffer
	ops := run(Options{}, 1500, timed{0, tool("a", "Bash", "a < b && c")}, timed{10, text(event.PhaseCompleted, "m", "0", "Done <ok>")})
	if err := WriteJSONL(&b, ops); err != nil {
		t.Fatal(err)
	}
	want := `{"op":"send","at":0,"text":"⏳ Working…"}
{"op":"edit","at":0,"text":"🔧 Bash: a < b && c"}
{"op":"edit","at":1500,"text":"Done <ok>","final":true}
`
	if b.String() != want {
		t.Errorf("got:\n%s\nwant:\n%s", b.String(), want)
	}
}

// fakeSink records what a chat backend would receive.
type fakeSink struct {
	log       []string
	rejectAll bool
	sends     int
}

func (f *fakeSink) Send(_ context.Context, text string) (string, error) {
	f.sends++
	id := "$" + string(rune('0'+f.sends))
	f.log = append(f.log, "send "+id+" "+text)
	return id, nil
}

func (f *fakeSink) Edit(_ context.Context, id, text string) error {
	if f.rejectAll {
		f.log = append(f.log, "edit "+id+" rejected")
		return errors.New("M_FORBIDDEN: edits not allowed")
	}
	f.log = append(f.log, "edit "+id+" "+text)
	return nil
}

func TestDelivery(t *testing.T) {
	ops := run(Options{}, 3000, timed{0, tool("a", "Bash", "ls")}, timed{1500, tool("b", "Read", "x.go")},
		timed{2000, text(event.PhaseCompleted, "m", "0", "Answer.")})
	t.Run("edits accepted", func(t *testing.T) {
		s := &fakeSink{}
		d := &Delivery{Sink: s}
		for _, op := range ops {
			if err := d.Apply(context.Background(), op); err != nil {
				t.Fatal(err)
			}
		}
		want := []string{"send $1 ⏳ Working…", "edit $1 🔧 Bash: ls", "edit $1 📖 Read: x.go", "edit $1 Answer."}
		if d := cmp.Diff(want, s.log); d != "" {
			t.Errorf("(-want +got):\n%s", d)
		}
	})
	t.Run("edits rejected", func(t *testing.T) {
		s := &fakeSink{rejectAll: true}
		d := &Delivery{Sink: s}
		for _, op := range ops {
			if err := d.Apply(context.Background(), op); err != nil {
				t.Fatal(err)
			}
		}
		want := []string{"send $1 ⏳ Working…", "edit $1 rejected", "edit $1 rejected", "send $2 Answer."}
		if d := cmp.Diff(want, s.log); d != "" {
			t.Errorf("after a rejected edit only the final answer is sent (-want +got):\n%s", d)
		}
		if d.Broken() == nil {
			t.Error("Broken() = nil after rejected edits")
		}
	})
}

// TestCommentaryIsNotTheAnswer: text the provider marks as commentary
// (Codex's agent_message phase) never becomes the final answer when a
// final answer follows, and is the fallback when none does.
func TestCommentaryIsNotTheAnswer(t *testing.T) {
	for _, tc := range []struct {
		reason string
		evs    []event.Event
		want   string
	}{
		{"final answer wins", []event.Event{
			{Kind: event.KindText, Phase: event.PhaseCompleted, MessageID: "1", Text: "Looking around.", MessagePhase: event.MessagePhaseCommentary},
			{Kind: event.KindText, Phase: event.PhaseCompleted, MessageID: "2", Text: "It is a demo.", MessagePhase: event.MessagePhaseFinalAnswer},
		}, "It is a demo."},
		{"commentary only", []event.Event{
			{Kind: event.KindText, Phase: event.PhaseCompleted, MessageID: "1", Text: "Looking around.", MessagePhase: event.MessagePhaseCommentary},
		}, "Looking around."},
	} {
		m := New(Options{})
		for _, e := range tc.evs {
			m.Handle(t0, e)
		}
		ops := m.Close(t0.Add(time.Second))
		if got := ops[len(ops)-1].Text; got != tc.want {
			t.Errorf("%s: final %q, want %q", tc.reason, got, tc.want)
		}
	}
}
