package claude

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

const corpusDir = "../../testdata/corpus/claude"

// extraDir holds this package's own real recordings of Claude Code
// features the shared corpus lacks (subagents, hooks, permission prompts,
// rate limits, MCP tools); see its MANIFEST.md.
const extraDir = "../../testdata/corpus-extra/claude"

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
	extra, err := filepath.Glob(filepath.Join(extraDir, "*.stdout.jsonl"))
	if err != nil || len(extra) == 0 {
		t.Fatalf("no recordings in %s (err %v)", extraDir, err)
	}
	for _, p := range extra {
		out["extra-"+strings.TrimSuffix(filepath.Base(p), ".stdout.jsonl")] = p
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

// convert feeds data to a Converter in chunks of size n (0: whole).
func convert(data []byte, n int) []event.Event {
	var evs []event.Event
	c := NewConverter(func(e event.Event) { evs = append(evs, e) })
	switch {
	case n == 0:
		c.Write(data)
	case n < 0: // line by line, newline included
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
			}{{"line by line", -1}, {"1-byte chunks", 1}, {"7-byte chunks", 7}} {
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

// rawLines calls fn for every JSON line of a capture.
func rawLines(t *testing.T, path string, fn func(v gjson.Result)) {
	t.Helper()
	for _, l := range bytes.Split(read(t, path), []byte("\n")) {
		if gjson.ValidBytes(l) {
			fn(gjson.ParseBytes(l))
		}
	}
}

func TestPartialDeltasReassembleFinalText(t *testing.T) {
	for _, name := range []string{"tools-partial", "long-text-partial", "error-retry"} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(corpusDir, name+".stdout.jsonl")
			// The final text of each block, from the full assistant lines.
			var want []string
			rawLines(t, path, func(v gjson.Result) {
				if v.Get("type").String() != "assistant" {
					return
				}
				for _, c := range v.Get("message.content").Array() {
					switch c.Get("type").String() {
					case "text":
						want = append(want, "text:"+c.Get("text").String())
					case "thinking":
						want = append(want, "thinking:"+c.Get("thinking").String())
					}
				}
			})
			evs := convert(read(t, path), 0)
			var fromDeltas, completed []string
			acc := map[string]*strings.Builder{}
			var order []string
			for _, e := range evs {
				if e.Kind != event.KindText && e.Kind != event.KindThinking {
					continue
				}
				key := string(e.Kind) + ":" + e.MessageID + "/" + e.PartID
				switch e.Phase {
				case event.PhaseStarted:
					acc[key] = &strings.Builder{}
					order = append(order, key)
				case event.PhaseDelta:
					acc[key].WriteString(e.Text)
				case event.PhaseCompleted:
					completed = append(completed, string(e.Kind)+":"+e.Text)
				}
			}
			for _, k := range order {
				kind, _, _ := strings.Cut(k, ":")
				fromDeltas = append(fromDeltas, kind+":"+acc[k].String())
			}
			if len(want) == 0 {
				t.Fatal("no assistant text in capture")
			}
			if d := cmp.Diff(want, fromDeltas); d != "" {
				t.Errorf("text reassembled from deltas differs from the assistant lines (-want +got):\n%s", d)
			}
			if d := cmp.Diff(want, completed); d != "" {
				t.Errorf("completed events differ from the assistant lines, duplicated or missing (-want +got):\n%s", d)
			}
		})
	}
}

func TestToolCallsMatchToolUseBlocks(t *testing.T) {
	for name, path := range inputs(t) {
		t.Run(name, func(t *testing.T) {
			ids := map[string]bool{}
			rawLines(t, path, func(v gjson.Result) {
				for _, c := range v.Get("message.content").Array() {
					if v.Get("type").String() == "assistant" && c.Get("type").String() == "tool_use" {
						ids[c.Get("id").String()] = true
					}
				}
			})
			got := map[string]int{}
			for _, e := range convert(read(t, path), 0) {
				if e.Kind == event.KindTool && e.Phase == event.PhaseCompleted {
					got[e.ToolCallID]++
				}
			}
			if len(got) != len(ids) {
				t.Errorf("%d tool calls, want %d (the tool_use blocks): %v", len(got), len(ids), got)
			}
			for id, n := range got {
				if !ids[id] || n != 1 {
					t.Errorf("tool call %s reported %d times (in raw input: %v)", id, n, ids[id])
				}
			}
		})
	}
}

// keptUnknown lists the native types that may give unknown events, and why.
var keptUnknown = map[string]string{
	"(invalid json)": "synthetic torn last line",
}

func TestNoUnknownEventsInCorpus(t *testing.T) {
	for name, path := range inputs(t) {
		t.Run(name, func(t *testing.T) {
			n := New()
			ref := int64(0)
			for _, l := range bytes.Split(bytes.TrimSuffix(read(t, path), []byte("\n")), []byte("\n")) {
				ref++
				c := n.Classify(l)
				if c.Disposition == event.DispositionUnknown && keptUnknown[c.NativeType] == "" {
					t.Errorf("line %d: unknown native type %q", ref, c.NativeType)
				}
				if len(c.UnknownFields) > 0 {
					t.Errorf("line %d (%s): unknown fields %v", ref, c.NativeType, c.UnknownFields)
				}
				for _, e := range n.Line(ref, l) {
					if e.Kind == event.KindUnknown && keptUnknown[e.NativeType] == "" {
						t.Errorf("line %d: unknown event %q", ref, e.NativeType)
					}
				}
			}
		})
	}
}
