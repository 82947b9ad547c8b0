package gemini_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evcap/evcap/event"
	"github.com/evcap/evcap/internal/corpustest"
	"github.com/evcap/evcap/normalize/gemini"
	"github.com/google/go-cmp/cmp"
	"github.com/sebdah/goldie/v2"
	"github.com/tidwall/gjson"
)

const corpus = "../../testdata/corpus/gemini"

// inputs lists every corpus capture and synthetic case this package reads.
func inputs(t testing.TB) []string {
	t.Helper()
	var files []string
	for _, pat := range []string{corpus + "/*.stdout.jsonl", "testdata/synthetic-*", extraDir + "/*.stdout.jsonl"} {
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
	if len(files) < 5 {
		t.Fatalf("found only %d inputs; is the corpus at %s?", len(files), corpus)
	}
	return files
}

// normalizeFile runs a fresh Normalizer over file, line by line.
func normalizeFile(t testing.TB, file string) []event.Event {
	t.Helper()
	n := gemini.New()
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
				w := gemini.NewConverter(func(e event.Event) { got = append(got, e) })
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
		n := gemini.New()
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
		n := gemini.New()
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

func FuzzLine(f *testing.F) {
	for _, file := range inputs(f) {
		corpustest.EachLine(f, file, func(_ int64, line []byte) { f.Add(append([]byte(nil), line...)) })
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		n := gemini.New()
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

// TestDeltasReassemble: every completed text equals its deltas, and the
// long-text answer, which Gemini CLI only ever prints as deltas, equals the
// whole text opencode printed for the same scripted answer of the same fake
// model server.
func TestDeltasReassemble(t *testing.T) {
	for _, file := range inputs(t) {
		acc := map[string]string{}
		for _, e := range normalizeFile(t, file) {
			if e.Kind != event.KindText {
				continue
			}
			switch e.Phase {
			case event.PhaseDelta:
				acc[e.PartID] += e.Text
			case event.PhaseCompleted:
				if _, ok := acc[e.PartID]; ok && acc[e.PartID] != e.Text {
					t.Errorf("%s %s: deltas %q != completed %q", file, e.PartID, acc[e.PartID], e.Text)
				}
			}
		}
	}
	var want string
	corpustest.EachLine(t, "../../testdata/corpus/opencode/long-text.stdout.jsonl", func(_ int64, line []byte) {
		if v := gjson.ParseBytes(line); v.Get("type").String() == "text" {
			want = v.Get("part.text").String()
		}
	})
	var got []string
	for _, e := range normalizeFile(t, filepath.Join(corpus, "long-text.stdout.jsonl")) {
		if e.Kind == event.KindText && e.Phase == event.PhaseCompleted {
			got = append(got, e.Text)
		}
	}
	if len(want) < 1000 || len(got) != 1 || got[0] != want {
		t.Errorf("long-text: got %d completed texts, first %d bytes; want one of %d bytes equal to opencode's", len(got), len(first(got)), len(want))
	}
}

func first(s []string) string {
	if len(s) == 0 {
		return ""
	}
	return s[0]
}

// TestToolCounts: one tool event per tool_use line and one tool_result
// event per tool_result line.
func TestToolCounts(t *testing.T) {
	for _, file := range inputs(t) {
		uses, results := 0, 0
		corpustest.EachLine(t, file, func(_ int64, line []byte) {
			switch gjson.GetBytes(line, "type").String() {
			case "tool_use":
				uses++
			case "tool_result":
				results++
			}
		})
		tools, res := 0, 0
		for _, e := range normalizeFile(t, file) {
			switch e.Kind {
			case event.KindTool:
				tools++
			case event.KindToolResult:
				res++
			}
		}
		if tools != uses || res != results {
			t.Errorf("%s: %d tool_use / %d tool_result lines, %d tool / %d tool_result events", file, uses, results, tools, res)
		}
	}
}

func TestToolSummary(t *testing.T) {
	cases := []struct {
		reason, line string
		name, sum    string
	}{
		{"shell command on one line", `{"type":"tool_use","tool_name":"run_shell_command","tool_id":"x","parameters":{"command":"ls\n-la","description":"d"}}`, "run_shell_command", "ls -la"},
		{"read_file gives the path", `{"type":"tool_use","tool_name":"read_file","tool_id":"x","parameters":{"file_path":"/p/README.md"}}`, "read_file", "/p/README.md"},
		{"unlisted tool keeps its name, leaks no argument", `{"type":"tool_use","tool_name":"mcp_secret","tool_id":"x","parameters":{"token":"abc"}}`, "mcp_secret", ""},
	}
	for _, c := range cases {
		evs := gemini.New().Line(1, []byte(c.line))
		if len(evs) != 1 || evs[0].Tool == nil {
			t.Fatalf("%s: %+v", c.reason, evs)
		}
		if got := evs[0].Tool; got.Name != c.name || got.Summary != c.sum {
			t.Errorf("%s: got %q %q, want %q %q", c.reason, got.Name, got.Summary, c.name, c.sum)
		}
	}
}

// TestFatalError: a result with status error yields a fatal error event and
// a failed result.
func TestFatalError(t *testing.T) {
	evs := normalizeFile(t, filepath.Join(corpus, "fatal-error.stdout.jsonl"))
	var kinds []string
	for _, e := range evs {
		kinds = append(kinds, string(e.Kind)+"/"+string(e.Phase))
	}
	want := []string{"init/completed", "usage/updated", "error/failed", "result/failed"}
	if diff := cmp.Diff(want, kinds); diff != "" {
		t.Fatalf("events (-want +got):\n%s", diff)
	}
	if !evs[2].Error.Fatal || !strings.Contains(evs[2].Error.Message, "API key not valid") {
		t.Errorf("error = %+v", evs[2].Error)
	}
}

// TestHugeLine: a 17 MiB tool output line goes through Writer in 1 MiB
// chunks and keeps its full length in OutputBytes.
func TestHugeLine(t *testing.T) {
	big := strings.Repeat("x", 17<<20)
	line := `{"type":"tool_result","timestamp":"2026-11-29T19:32:05.341Z","tool_id":"t","status":"success","output":"` + big + "\"}\n"
	var got []event.Event
	w := gemini.NewConverter(func(e event.Event) { got = append(got, e) })
	for p := []byte(line); len(p) > 0; {
		n := min(len(p), 1<<20)
		w.Write(p[:n])
		p = p[n:]
	}
	w.Close()
	if len(got) == 0 || got[0].ToolResult == nil || got[0].ToolResult.OutputBytes != len(big) || len(got[0].ToolResult.Output) > 4096 {
		t.Fatalf("huge line: %d events: %+v", len(got), got)
	}
}
