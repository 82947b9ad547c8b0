package opencode_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evcap/evcap/event"
	"github.com/evcap/evcap/internal/corpustest"
	"github.com/evcap/evcap/normalize/opencode"
	"github.com/google/go-cmp/cmp"
	"github.com/sebdah/goldie/v2"
	"github.com/tidwall/gjson"
)

const corpus = "../../testdata/corpus/opencode"

// inputs lists every corpus capture and synthetic case this package reads.
func inputs(t testing.TB) []string {
	t.Helper()
	var files []string
	for _, pat := range []string{corpus + "/*.stdout.jsonl", corpus + "/*.sse.txt", "testdata/synthetic-*", extraDir + "/*.stdout.jsonl", extraDir + "/*.sse.txt"} {
		m, err := filepath.Glob(pat)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range m {
			if !strings.HasSuffix(f, ".golden") {
				files = append(files, f)
			}
		}
	}
	if len(files) < 8 {
		t.Fatalf("found only %d inputs; is the corpus at %s?", len(files), corpus)
	}
	return files
}

// normalizeFile runs a fresh Normalizer over file, line by line.
func normalizeFile(t testing.TB, file string) []event.Event {
	t.Helper()
	n := opencode.New()
	var out []event.Event
	corpustest.EachLine(t, file, func(ref int64, line []byte) { out = append(out, n.Line(ref, line)...) })
	return append(out, n.End()...)
}

func jsonl(t testing.TB, evs []event.Event) []byte {
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

func goldenName(file string) string {
	base := filepath.Base(file)
	for _, ext := range []string{".jsonl", ".txt"} {
		base = strings.TrimSuffix(base, ext)
	}
	return base
}

func TestGolden(t *testing.T) {
	g := goldie.New(t, goldie.WithFixtureDir("testdata"), goldie.WithNameSuffix(".golden"))
	for _, file := range inputs(t) {
		t.Run(goldenName(file), func(t *testing.T) {
			g.Assert(t, goldenName(file), jsonl(t, normalizeFile(t, file)))
		})
	}
}

// TestChunking feeds each input through NewConverter whole, line by line and one
// byte at a time; all must match the line-by-line Normalizer.
func TestChunking(t *testing.T) {
	for _, file := range inputs(t) {
		t.Run(goldenName(file), func(t *testing.T) {
			want := normalizeFile(t, file)
			data, err := os.ReadFile(file) // small test inputs; captures are streamed elsewhere
			if err != nil {
				t.Fatal(err)
			}
			for name, chunks := range map[string][][]byte{
				"whole":  {data},
				"lines":  bytes.SplitAfter(data, []byte("\n")),
				"1-byte": bytes.SplitAfter(data, nil),
			} {
				var got []event.Event
				w := opencode.NewConverter(func(e event.Event) { got = append(got, e) })
				for _, c := range chunks {
					if _, err := w.Write(c); err != nil {
						t.Fatal(err)
					}
				}
				if err := w.Close(); err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("%s chunking differs (-line by line +%s):\n%s", name, name, diff)
				}
			}
		})
	}
}

// TestNoUnknown: the real corpus normalizes without unknown events, and
// Classify knows every line and every field in it.
func TestNoUnknown(t *testing.T) {
	for _, file := range inputs(t) {
		if strings.Contains(file, "synthetic") {
			continue
		}
		for _, e := range normalizeFile(t, file) {
			if e.Kind == event.KindUnknown {
				t.Errorf("%s: unknown event %s (cause %v)", file, e.NativeType, e.Cause)
			}
		}
		n := opencode.New()
		corpustest.EachLine(t, file, func(ref int64, line []byte) {
			c := n.Classify(line)
			if c.Disposition == event.DispositionUnknown || len(c.UnknownFields) > 0 {
				t.Errorf("%s:%d: %+v", file, ref, c)
			}
			if c.Disposition == event.DispositionIgnored && c.Reason == "" {
				t.Errorf("%s:%d: ignored without a reason: %+v", file, ref, c)
			}
			n.Line(ref, line)
		})
	}
}

// TestClassifyIsPure: calling Classify before every Line changes nothing.
func TestClassifyIsPure(t *testing.T) {
	for _, file := range inputs(t) {
		want := normalizeFile(t, file)
		n := opencode.New()
		var got []event.Event
		corpustest.EachLine(t, file, func(ref int64, line []byte) {
			n.Classify(line)
			got = append(got, n.Line(ref, line)...)
		})
		got = append(got, n.End()...)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s: Classify changed the output:\n%s", file, diff)
		}
	}
}

// TestDeltasReassemble: on the bus, the deltas of each text and reasoning
// part add up to the part's completed text, and the completed texts equal
// the ones `opencode run` printed for the same scenario.
func TestDeltasReassemble(t *testing.T) {
	for _, c := range []struct{ serve, run string }{
		{"serve-tools.sse.txt", "tools.stdout.jsonl"},
		{"serve-error-retry.sse.txt", "error-retry.stdout.jsonl"},
	} {
		evs := normalizeFile(t, filepath.Join(corpus, c.serve))
		acc := map[string]string{}
		var busTexts []string
		deltas := 0
		for _, e := range evs {
			if e.Kind != event.KindText && e.Kind != event.KindThinking {
				continue
			}
			key := string(e.Kind) + "/" + e.PartID
			switch e.Phase {
			case event.PhaseDelta:
				acc[key] += e.Text
				deltas++
			case event.PhaseCompleted:
				if acc[key] != e.Text {
					t.Errorf("%s part %s: deltas %q != completed %q", c.serve, key, acc[key], e.Text)
				}
				busTexts = append(busTexts, string(e.Kind)+":"+e.Text)
			}
		}
		if deltas == 0 {
			t.Errorf("%s: no deltas", c.serve)
		}
		var runTexts []string
		for _, e := range normalizeFile(t, filepath.Join(corpus, c.run)) {
			if (e.Kind == event.KindText || e.Kind == event.KindThinking) && e.Phase == event.PhaseCompleted {
				runTexts = append(runTexts, string(e.Kind)+":"+e.Text)
			}
		}
		if diff := cmp.Diff(runTexts, busTexts); diff != "" {
			t.Errorf("%s vs %s texts (-run +serve):\n%s", c.run, c.serve, diff)
		}
	}
}

// TestToolCounts: one completed tool event and one tool_result per tool
// call in the raw input (tool_use lines, or tool parts that reached
// completed/error on the bus).
func TestToolCounts(t *testing.T) {
	for _, file := range inputs(t) {
		calls := map[string]bool{}
		corpustest.EachLine(t, file, func(_ int64, line []byte) {
			line = bytes.TrimPrefix(line, []byte("data: "))
			if !gjson.ValidBytes(line) {
				return
			}
			v := gjson.ParseBytes(line)
			part := v.Get("part")
			if v.Get("type").String() == "message.part.updated" {
				part = v.Get("properties.part")
			}
			st := part.Get("state.status").String()
			if part.Get("type").String() == "tool" && (st == "completed" || st == "error") {
				calls[part.Get("callID").String()] = true
			}
		})
		tools, results := 0, 0
		for _, e := range normalizeFile(t, file) {
			if e.Kind == event.KindTool && e.Phase == event.PhaseCompleted {
				tools++
			}
			if e.Kind == event.KindToolResult {
				results++
			}
		}
		if tools != len(calls) || results != len(calls) {
			t.Errorf("%s: %d tool calls in input, %d tool completed, %d results", file, len(calls), tools, results)
		}
	}
}

// TestErrorKeepsNoResponse: the fatal error event carries name and
// message, never the response headers or body.
func TestErrorKeepsNoResponse(t *testing.T) {
	evs := normalizeFile(t, filepath.Join(corpus, "fatal-error.stdout.jsonl"))
	out := string(jsonl(t, evs))
	for _, leak := range []string{"fakellm", "content-length", "invalid_api_key", "127.0.0.1"} {
		if strings.Contains(out, leak) {
			t.Errorf("normalized output contains %q from the raw response:\n%s", leak, out)
		}
	}
	var fatal *event.Error
	for _, e := range evs {
		if e.Kind == event.KindError {
			fatal = e.Error
		}
	}
	if fatal == nil || !fatal.Fatal || fatal.Type != "APIError" || !strings.HasPrefix(fatal.Message, "Incorrect API key") {
		t.Errorf("fatal error = %+v", fatal)
	}
	last := evs[len(evs)-1]
	if last.Kind != event.KindResult || last.Result.Subtype != "error" || !last.Result.IsError {
		t.Errorf("last event = %+v, want a failed result with subtype error", last)
	}
}

func TestToolSummary(t *testing.T) {
	long := strings.Repeat("echo hi && ", 30)
	cases := []struct {
		reason, line string
		name, sum    string
	}{
		{"bash command collapsed and cut", `{"type":"tool_use","part":{"type":"tool","tool":"bash","callID":"c","state":{"status":"completed","input":{"command":"ls\n  -la\tfoo"},"output":""}}}`, "bash", "ls -la foo"},
		{"bash cut to 120", `{"type":"tool_use","part":{"type":"tool","tool":"bash","callID":"c","state":{"status":"completed","input":{"command":"` + long + `"},"output":""}}}`, "bash", strings.TrimSpace(long)[:119] + "…"},
		{"read gives the path", `{"type":"tool_use","part":{"type":"tool","tool":"read","callID":"c","state":{"status":"completed","input":{"filePath":"/a/b"},"output":""}}}`, "read", "/a/b"},
		{"unlisted tool keeps its name, leaks no argument", `{"type":"tool_use","part":{"type":"tool","tool":"secret_tool","callID":"c","state":{"status":"completed","input":{"token":"abc"},"output":""}}}`, "secret_tool", ""},
	}
	for _, c := range cases {
		evs := opencode.New().Line(1, []byte(c.line))
		if len(evs) == 0 || evs[0].Tool == nil {
			t.Fatalf("%s: no tool event: %+v", c.reason, evs)
		}
		if got := evs[0].Tool; got.Name != c.name || got.Summary != c.sum {
			t.Errorf("%s: got %q %q, want %q %q", c.reason, got.Name, got.Summary, c.name, c.sum)
		}
	}
}

func FuzzLine(f *testing.F) {
	for _, file := range inputs(f) {
		corpustest.EachLine(f, file, func(_ int64, line []byte) { f.Add(append([]byte(nil), line...)) })
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		n := opencode.New()
		var evs []event.Event
		for i, line := range bytes.Split(data, []byte("\n")) {
			n.Classify(line)
			evs = append(evs, n.Line(int64(i+1), line)...)
		}
		evs = append(evs, n.End()...)
		for _, e := range evs {
			if e.Kind == "" || e.Phase == "" {
				t.Fatalf("event without kind or phase: %+v", e)
			}
		}
	})
}

// TestSSEEqualsJSONL: the raw SSE capture and its one-payload-per-line copy
// give the same events (only the line numbers differ).
func TestSSEEqualsJSONL(t *testing.T) {
	for _, name := range []string{"serve-tools", "serve-error-retry"} {
		strip := func(evs []event.Event) []event.Event {
			for i := range evs {
				evs[i].Cause = nil
			}
			return evs
		}
		sse := strip(normalizeFile(t, filepath.Join(corpus, name+".sse.txt")))
		jl := strip(normalizeFile(t, filepath.Join(corpus, name+".stdout.jsonl")))
		if diff := cmp.Diff(jl, sse); diff != "" {
			t.Errorf("%s (-jsonl +sse):\n%s", name, diff)
		}
	}
}

// TestClassifySynthetic checks the census verdicts on the synthetic case
// with shapes the corpus does not have.
func TestClassifySynthetic(t *testing.T) {
	n := opencode.New()
	var got []event.Classification
	corpustest.EachLine(t, "testdata/synthetic-unknown-type.jsonl", func(ref int64, line []byte) {
		got = append(got, n.Classify(line))
		n.Line(ref, line)
	})
	want := []event.Classification{
		{NativeType: "step_start", Disposition: event.DispositionIgnored, Reason: "marks a model call; the message id is on every part"},
		{NativeType: "brand_new_type", Disposition: event.DispositionUnknown},
		{NativeType: "todo.updated", Disposition: event.DispositionUnknown},
		{NativeType: "message.part.updated/subtask", Disposition: event.DispositionUnknown},
		{NativeType: "text", Disposition: event.DispositionHandled, UnknownFields: []string{"part.newField"}},
		{NativeType: "step_finish", Disposition: event.DispositionHandled},
		{NativeType: "done", Disposition: event.DispositionHandled},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("classifications (-want +got):\n%s", diff)
	}
}

// TestHugeLine: a 17 MiB tool output line goes through Writer in 1 MiB
// chunks and keeps its full length in OutputBytes.
func TestHugeLine(t *testing.T) {
	big := strings.Repeat("x", 17<<20)
	line := `{"type":"tool_use","timestamp":1,"sessionID":"s","part":{"type":"tool","tool":"bash","callID":"c","id":"p","messageID":"m","sessionID":"s","state":{"status":"completed","input":{"command":"yes"},"output":"` + big + "\"}}}\n"
	var got []event.Event
	w := opencode.NewConverter(func(e event.Event) { got = append(got, e) })
	for p := []byte(line); len(p) > 0; {
		n := min(len(p), 1<<20)
		w.Write(p[:n])
		p = p[n:]
	}
	w.Close()
	if len(got) < 2 || got[1].ToolResult == nil || got[1].ToolResult.OutputBytes != len(big) || len(got[1].ToolResult.Output) > 4096 {
		t.Fatalf("huge line: %d events", len(got))
	}
}
