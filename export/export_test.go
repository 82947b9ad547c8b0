package export_test

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/evcap/evcap/envelope"
	"github.com/evcap/evcap/event"
	"github.com/evcap/evcap/export"
	"github.com/evcap/evcap/source"
)

// fixtureDirs lists the checked-in fixtures (promoted real corpus captures).
func fixtureDirs(t *testing.T) []string {
	t.Helper()
	var dirs []string
	err := filepath.WalkDir("../fixtures/testdata", func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && d.Name() == "fixture.json" {
			dirs = append(dirs, filepath.Dir(p))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(dirs) < 20 {
		t.Fatalf("found %d fixtures under ../fixtures/testdata, want the whole corpus (>= 20)", len(dirs))
	}
	return dirs
}

// expected is what a capture's normalized events say its trace must hold,
// worked out here without the Builder.
type expected struct {
	toolNames  map[string]string // tool call id -> name
	toolFailed map[string]bool
	// chatIn/chatOut: what the chat spans must add up to; rootIn/rootOut:
	// the run's totals on the root span (-1: none reported).
	chatIn, chatOut int64
	rootIn, rootOut int64
	fatal           bool
	retries         int
	// messages is the number of distinct model message ids of the main
	// agent's text, thinking and usage (0 when the provider gives none).
	messages int
}

func expect(t *testing.T, dir string) expected {
	t.Helper()
	in, err := source.Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	e := expected{toolNames: map[string]string{}, toolFailed: map[string]bool{}}
	rd := envelope.NewReader(in.Reader(), dir, envelope.ReaderOptions{})
	var lastCum *event.Usage
	perMessage := map[string]event.Usage{} // last usage of each model message
	msgs := map[string]bool{}
	for {
		rec, err := rd.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if rec.Stage != envelope.StageNormalizedOut {
			continue
		}
		var ev event.Event
		if err := json.Unmarshal(rec.Payload, &ev); err != nil {
			t.Fatal(err)
		}
		if ev.MessageID != "" && ev.ParentToolCallID == "" {
			switch ev.Kind {
			case event.KindText, event.KindThinking, event.KindUsage, event.KindTool:
				msgs[ev.MessageID] = true
			}
		}
		switch ev.Kind {
		case event.KindTool:
			if ev.Tool != nil {
				e.toolNames[ev.ToolCallID] = ev.Tool.Name
			}
		case event.KindToolResult:
			if _, ok := e.toolNames[ev.ToolCallID]; !ok {
				e.toolNames[ev.ToolCallID] = ""
			}
			if ev.Phase == event.PhaseFailed || (ev.ToolResult != nil && ev.ToolResult.IsError) {
				e.toolFailed[ev.ToolCallID] = true
			}
		case event.KindUsage:
			if ev.Usage.Cumulative {
				u := *ev.Usage
				lastCum = &u
			} else {
				perMessage[ev.ParentToolCallID+"/"+ev.MessageID] = *ev.Usage
			}
		case event.KindError:
			if ev.Error != nil && ev.Error.Fatal {
				e.fatal = true
			}
		case event.KindRetry:
			e.retries++
		}
	}
	e.messages = len(msgs)
	e.rootIn, e.rootOut = -1, -1
	if lastCum != nil {
		e.rootIn, e.rootOut = lastCum.InputTokens, lastCum.OutputTokens
	}
	if len(perMessage) > 0 {
		for _, u := range perMessage {
			e.chatIn += u.InputTokens
			e.chatOut += u.OutputTokens
		}
	} else if lastCum != nil {
		e.chatIn, e.chatOut = lastCum.InputTokens, lastCum.OutputTokens
	}
	return e
}

func exportDir(t *testing.T, dir string) []sdktrace.ReadOnlySpan {
	t.Helper()
	mem := tracetest.NewInMemoryExporter()
	em := export.NewEmitter(sdktrace.NewSimpleSpanProcessor(mem), "", "test")
	in, err := source.Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	ctx := context.Background()
	base := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	if _, err := export.Capture(ctx, in.Reader(), dir, export.Options{Base: base}, func(s *export.Span) { em.Emit(ctx, s) }); err != nil {
		t.Fatal(err)
	}
	if err := em.ForceFlush(ctx); err != nil {
		t.Fatal(err)
	}
	var out []sdktrace.ReadOnlySpan
	for _, s := range mem.GetSpans() {
		out = append(out, s.Snapshot())
	}
	// The in-memory exporter forgets its spans on shutdown: read them first.
	if err := em.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	return out
}

func attr(s sdktrace.ReadOnlySpan, key string) (string, int64, bool) {
	for _, a := range s.Attributes() {
		if string(a.Key) == key {
			return a.Value.String(), a.Value.AsInt64(), true
		}
	}
	return "", 0, false
}

// TestFixtureTraces exports every checked-in corpus fixture and checks the
// trace's shape against the fixture's own normalized events: one root,
// every parent present, one execute_tool span per tool call with its name
// and status, token totals, fatal errors as an error status, one retry
// span event per retry.
func TestFixtureTraces(t *testing.T) {
	for _, dir := range fixtureDirs(t) {
		t.Run(filepath.Base(filepath.Dir(dir))+"/"+filepath.Base(dir), func(t *testing.T) {
			want := expect(t, dir)
			spans := exportDir(t, dir)
			byID := map[string]sdktrace.ReadOnlySpan{}
			var roots []sdktrace.ReadOnlySpan
			for _, s := range spans {
				byID[s.SpanContext().SpanID().String()] = s
				if !s.Parent().IsValid() {
					roots = append(roots, s)
				}
			}
			if len(roots) != 1 {
				t.Fatalf("%d root spans, want 1", len(roots))
			}
			root := roots[0]
			if op, _, _ := attr(root, "gen_ai.operation.name"); op != "invoke_agent" {
				t.Errorf("root gen_ai.operation.name = %q", op)
			}
			if id, _, _ := attr(root, "evcap.capture.id"); id == "" {
				t.Error("root has no evcap.capture.id")
			}
			gotTools := map[string]string{}
			gotFailed := map[string]bool{}
			var in, out int64
			retries, chats := 0, 0
			for _, s := range spans {
				if s.SpanContext().TraceID() != root.SpanContext().TraceID() {
					t.Errorf("span %q in another trace", s.Name())
				}
				if s.Parent().IsValid() {
					if _, ok := byID[s.Parent().SpanID().String()]; !ok {
						t.Errorf("span %q has a parent that was never sent", s.Name())
					}
				}
				if s.EndTime().Before(s.StartTime()) {
					t.Errorf("span %q ends before it starts", s.Name())
				}
				op, _, _ := attr(s, "gen_ai.operation.name")
				switch op {
				case "execute_tool":
					id, _, _ := attr(s, "gen_ai.tool.call.id")
					name, _, _ := attr(s, "gen_ai.tool.name")
					gotTools[id] = name
					if s.Status().Code == codes.Error {
						gotFailed[id] = true
					}
				case "chat":
					if _, _, sub := attr(s, "evcap.parent_tool_call.id"); !sub {
						chats++
					}
					_, n, _ := attr(s, "gen_ai.usage.input_tokens")
					in += n
					_, n, _ = attr(s, "gen_ai.usage.output_tokens")
					out += n
				}
				for _, ev := range s.Events() {
					if ev.Name == "retry" {
						retries++
					}
				}
			}
			if diff := cmp.Diff(want.toolNames, gotTools); diff != "" {
				t.Errorf("tool calls (-normalized +trace):\n%s", diff)
			}
			if diff := cmp.Diff(want.toolFailed, gotFailed); diff != "" {
				t.Errorf("failed tool calls (-normalized +trace):\n%s", diff)
			}
			if in != want.chatIn || out != want.chatOut {
				t.Errorf("chat spans' tokens in/out = %d/%d, normalized events say %d/%d", in, out, want.chatIn, want.chatOut)
			}
			rootIn, rootOut := int64(-1), int64(-1)
			if _, n, ok := attr(root, "gen_ai.usage.input_tokens"); ok {
				rootIn = n
			}
			if _, n, ok := attr(root, "gen_ai.usage.output_tokens"); ok {
				rootOut = n
			}
			if rootIn != want.rootIn || rootOut != want.rootOut {
				t.Errorf("root tokens in/out = %d/%d, the run's totals are %d/%d", rootIn, rootOut, want.rootIn, want.rootOut)
			}
			if want.messages > 0 && chats != want.messages {
				t.Errorf("%d chat spans of the main agent, %d model messages", chats, want.messages)
			}
			if want.fatal && root.Status().Code != codes.Error {
				t.Errorf("fatal error in the capture, root status %v", root.Status())
			}
			if retries != want.retries {
				t.Errorf("%d retry span events, %d retry events", retries, want.retries)
			}
		})
	}
}

// TestDeterministicIDs: the same capture exported twice gives the same
// trace and span ids (so a backend keyed by id keeps one copy), and two
// captures never share a trace.
func TestDeterministicIDs(t *testing.T) {
	dirs := fixtureDirs(t)
	ids := func(dir string) []string {
		var out []string
		for _, s := range exportDir(t, dir) {
			out = append(out, s.SpanContext().TraceID().String()+"/"+s.SpanContext().SpanID().String()+" "+s.Name())
		}
		sort.Strings(out)
		return out
	}
	a, b := ids(dirs[0]), ids(dirs[0])
	if diff := cmp.Diff(a, b); diff != "" {
		t.Fatalf("second export differs:\n%s", diff)
	}
	other := ids(dirs[1])
	if a[0][:32] == other[0][:32] {
		t.Fatalf("two captures share trace id %s", a[0][:32])
	}
}

// TestSubagentNesting: in a real Claude Code run with a Task subagent, the
// subagent's invoke_agent span hangs under the Agent tool call that started
// it, and the subagent's own chat and tool spans under it; each once.
func TestSubagentNesting(t *testing.T) {
	spans := exportDir(t, "testdata/claude-subagent.capture.jsonl")
	byName := map[string][]sdktrace.ReadOnlySpan{}
	for _, s := range spans {
		byName[s.Name()] = append(byName[s.Name()], s)
	}
	one := func(name string) sdktrace.ReadOnlySpan {
		t.Helper()
		if len(byName[name]) != 1 {
			var names []string
			for n := range byName {
				names = append(names, n)
			}
			sort.Strings(names)
			t.Fatalf("%d spans named %q, want 1 (spans: %v)", len(byName[name]), name, names)
		}
		return byName[name][0]
	}
	root := one("invoke_agent claude")
	task := one("execute_tool Agent")
	sub := one("invoke_agent general-purpose")
	bash := one("execute_tool Bash")
	for _, c := range []struct {
		child, parent sdktrace.ReadOnlySpan
		reason        string
	}{
		{task, root, "the main agent's tool call"},
		{sub, task, "the subagent runs inside the tool call that started it"},
		{bash, sub, "the subagent's own tool call"},
	} {
		if c.child.Parent().SpanID() != c.parent.SpanContext().SpanID() {
			t.Errorf("%s: parent of %q is not %q", c.reason, c.child.Name(), c.parent.Name())
		}
	}
	subChats := 0
	for _, s := range spans {
		if s.Parent().SpanID() == sub.SpanContext().SpanID() && strings.HasPrefix(s.Name(), "chat") {
			subChats++
		}
	}
	if subChats == 0 {
		t.Error("the subagent's model turns have no chat span under it")
	}
}
