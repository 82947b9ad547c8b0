package codex

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evcap/evcap/event"
	"github.com/google/go-cmp/cmp"
	"github.com/sebdah/goldie/v2"
	"github.com/tidwall/gjson"
)

const corpusDir = "../../testdata/corpus/codex"

// extraDir holds the recordings of older codex versions, one directory
// per version (see its MANIFEST.md).
const extraDir = "../../testdata/corpus-extra/codex"

// inputs returns every stream this package is tested on: the real corpus
// captures and the synthetic cases in testdata, by golden name.
func inputs(t *testing.T) map[string]string {
	t.Helper()
	real, err := filepath.Glob(filepath.Join(corpusDir, "*.stdout.jsonl"))
	if err != nil || len(real) == 0 {
		t.Fatalf("no corpus captures in %s (err %v)", corpusDir, err)
	}
	synth, _ := filepath.Glob("testdata/synthetic-*.jsonl")
	out := map[string]string{}
	for _, p := range append(real, synth...) {
		name := strings.TrimSuffix(strings.TrimSuffix(filepath.Base(p), ".jsonl"), ".stdout")
		out[name] = p
	}
	extra, _ := filepath.Glob(filepath.Join(extraDir, "*", "*.stdout.jsonl"))
	if len(extra) < 20 {
		t.Fatalf("only %d recordings of older codex versions in %s", len(extra), extraDir)
	}
	for _, p := range extra {
		version := filepath.Base(filepath.Dir(p))
		out["extra-"+version+"-"+strings.TrimSuffix(filepath.Base(p), ".stdout.jsonl")] = p
	}
	return out
}

func read(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// convert feeds data to a Converter in chunks of size n (0: whole, <0:
// line by line).
func convert(data []byte, n int) []event.Event {
	var evs []event.Event
	c := NewConverter(func(e event.Event) { evs = append(evs, e) })
	switch {
	case n == 0:
		c.Write(data)
	case n < 0:
		for _, l := range bytes.SplitAfter(data, []byte("\n")) {
			c.Write(l)
		}
	default:
		for i := 0; i < len(data); i += n {
			c.Write(data[i:min(i+n, len(data))])
		}
	}
	c.Close()
	return evs
}

func jsonl(t *testing.T, evs []event.Event) []byte {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	for _, e := range evs {
		if err := enc.Encode(e); err != nil {
			t.Fatal(err)
		}
	}
	return b.Bytes()
}

func TestGolden(t *testing.T) {
	g := goldie.New(t)
	for name, path := range inputs(t) {
		t.Run(name, func(t *testing.T) {
			f, err := os.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			evs, err := Normalize(f)
			if err != nil {
				t.Fatal(err)
			}
			g.Assert(t, name, jsonl(t, evs))
		})
	}
}

func TestChunkingGivesSameEvents(t *testing.T) {
	for name, path := range inputs(t) {
		t.Run(name, func(t *testing.T) {
			data := read(t, path)
			whole := convert(data, 0)
			if len(whole) == 0 {
				t.Fatal("no events")
			}
			for _, tc := range []struct {
				reason string
				n      int
			}{{"line by line", -1}, {"1-byte chunks", 1}, {"5-byte chunks", 5}} {
				if d := cmp.Diff(whole, convert(data, tc.n)); d != "" {
					t.Errorf("%s differs from whole (-whole +chunked):\n%s", tc.reason, d)
				}
			}
			f, _ := os.Open(path)
			defer f.Close()
			viaReader, err := Normalize(f)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(whole, viaReader); d != "" {
				t.Errorf("Normalize differs from Converter (-converter +normalize):\n%s", d)
			}
		})
	}
}

func TestToolCallsMatchToolItems(t *testing.T) {
	for name, path := range inputs(t) {
		t.Run(name, func(t *testing.T) {
			ids := map[string]bool{}
			for _, l := range bytes.Split(read(t, path), []byte("\n")) {
				if !gjson.ValidBytes(l) {
					continue
				}
				it := gjson.GetBytes(l, "item")
				typ := it.Get("type").String()
				if typ == "" {
					typ = it.Get("item_type").String()
				}
				switch typ {
				case "command_execution", "file_change", "mcp_tool_call", "web_search", "collab_tool_call":
					ids[it.Get("id").String()] = true
				}
				switch gjson.GetBytes(l, "msg.type").String() {
				case "exec_command_begin", "exec_command_end", "patch_apply_begin", "patch_apply_end",
					"mcp_tool_call_begin", "mcp_tool_call_end", "web_search_end", "view_image_tool_call":
					ids[gjson.GetBytes(l, "msg.call_id").String()] = true
				}
			}
			calls, results := map[string]int{}, map[string]int{}
			for _, e := range convert(read(t, path), 0) {
				switch {
				case e.Kind == event.KindTool && e.Phase == event.PhaseCompleted:
					calls[e.ToolCallID]++
				case e.Kind == event.KindToolResult:
					results[e.ToolCallID]++
				}
			}
			if len(calls) != len(ids) || len(results) != len(ids) {
				t.Errorf("%d tool calls and %d results, want %d (the tool items): %v %v", len(calls), len(results), len(ids), calls, results)
			}
			for id := range ids {
				if calls[id] != 1 || results[id] != 1 {
					t.Errorf("item %s: %d calls, %d results; want 1 and 1", id, calls[id], results[id])
				}
			}
		})
	}
}

// testKeptUnknown lists the native types that may give unknown events in
// the synthetic cases, and why; the real corpus must have none.
var testKeptUnknown = map[string]string{
	"(invalid json)": "synthetic torn last line",
}

func TestNoUnknownEventsInCorpus(t *testing.T) {
	for name, path := range inputs(t) {
		t.Run(name, func(t *testing.T) {
			synthetic := strings.HasPrefix(name, "synthetic-")
			n := New()
			ref := int64(0)
			for _, l := range bytes.Split(bytes.TrimSuffix(read(t, path), []byte("\n")), []byte("\n")) {
				ref++
				c := n.Classify(l)
				allowed := synthetic && testKeptUnknown[c.NativeType] != ""
				if c.Disposition == event.DispositionUnknown && !allowed {
					t.Errorf("line %d: unknown native type %q", ref, c.NativeType)
				}
				if len(c.UnknownFields) > 0 && !synthetic {
					t.Errorf("line %d (%s): unknown fields %v", ref, c.NativeType, c.UnknownFields)
				}
				for _, e := range n.Line(ref, l) {
					if e.Kind == event.KindUnknown && !(synthetic && testKeptUnknown[e.NativeType] != "") {
						t.Errorf("line %d: unknown event %q", ref, e.NativeType)
					}
				}
			}
		})
	}
}

func TestClassifySynthetic(t *testing.T) {
	n := New()
	for _, tc := range []struct {
		reason, line, native string
		disp                 event.Disposition
		fields               []string
	}{
		{"new item field is reported", `{"type":"item.completed","item":{"id":"item_7","type":"agent_message","text":"x","phase":"final_answer","tone":"dry"}}`,
			"item.completed/agent_message", event.DispositionHandled, []string{"item.tone"}},
		{"new usage is not a new top-level field", `{"type":"turn.completed","usage":{"input_tokens":1}}`,
			"turn.completed", event.DispositionHandled, nil},
		{"legacy event is handled", `{"id":"0","msg":{"type":"task_started","model_context_window":272000}}`,
			"legacy/task_started", event.DispositionHandled, nil},
		{"new legacy field is reported", `{"id":"0","msg":{"type":"task_complete","last_agent_message":"x","turn_id":"1"}}`,
			"legacy/task_complete", event.DispositionHandled, []string{"msg.turn_id"}},
		{"legacy event ignored on purpose", `{"id":"0","msg":{"type":"exec_command_output_delta","call_id":"c","stream":"stdout","chunk":"eA=="}}`,
			"legacy/exec_command_output_delta", event.DispositionIgnored, nil},
		{"unknown legacy event", `{"id":"0","msg":{"type":"hologram_begin"}}`, "legacy/hologram_begin", event.DispositionUnknown, nil},
		{"legacy config summary", `{"model":"gpt-5.5","sandbox":"read-only","approval":"never","workdir":"/w"}`,
			"legacy/config_summary", event.DispositionHandled, nil},
		{"item_type variant", `{"type":"item.completed","item":{"id":"item_1","item_type":"assistant_message","text":"hi"}}`,
			"item.completed/assistant_message", event.DispositionHandled, nil},
		{"collab tool call", `{"type":"item.completed","item":{"id":"item_1","type":"collab_tool_call","tool":"wait","sender_thread_id":"a","receiver_thread_ids":["b"],"prompt":null,"agents_states":{},"status":"completed"}}`,
			"item.completed/collab_tool_call", event.DispositionHandled, nil},
		{"unknown item type", `{"type":"item.completed","item":{"id":"item_1","type":"hologram"}}`,
			"item.completed/hologram", event.DispositionUnknown, nil},
	} {
		c := n.Classify([]byte(tc.line))
		if c.NativeType != tc.native || c.Disposition != tc.disp || !cmp.Equal(c.UnknownFields, tc.fields) {
			t.Errorf("%s: got %+v", tc.reason, c)
		}
	}
}

func TestRetryParsing(t *testing.T) {
	for _, tc := range []struct {
		msg  string
		want event.Retry
		ok   bool
	}{
		{"Reconnecting... 1/2 (exceeded retry limit, last status: 429 Too Many Requests)",
			event.Retry{Attempt: 1, MaxRetries: 2, Status: 429, Error: "exceeded retry limit, last status: 429 Too Many Requests"}, true},
		{"Reconnecting... 2/2 (unexpected status 401 Unauthorized: bad key)",
			event.Retry{Attempt: 2, MaxRetries: 2, Status: 401, Error: "unexpected status 401 Unauthorized: bad key"}, true},
		{"unexpected status 401 Unauthorized", event.Retry{}, false},
	} {
		got, ok := parseRetry(tc.msg)
		if ok != tc.ok || got != tc.want {
			t.Errorf("parseRetry(%q) = %+v, %v; want %+v, %v", tc.msg, got, ok, tc.want, tc.ok)
		}
	}
}

func TestUnwrapCommand(t *testing.T) {
	for in, want := range map[string]string{
		"/bin/bash -lc ls":                "ls",
		"/bin/bash -lc 'cat README.md'":   "cat README.md",
		`/bin/bash -lc 'echo '\''hi'\'''`: "echo 'hi'",
		"/bin/bash -lc 'a' && 'b'":        "'a' && 'b'",
		"python3 script.py":               "python3 script.py",
	} {
		if got := unwrapCommand(in); got != want {
			t.Errorf("unwrapCommand(%q) = %q, want %q", in, got, want)
		}
	}
}
