package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evcap/evcap/census"
	"github.com/evcap/evcap/event"
	"github.com/evcap/evcap/internal/corpustest"
	"github.com/google/go-cmp/cmp"
	"github.com/tidwall/gjson"
)

// TestCensusCorpus runs the census over every native stream of the real CLI
// corpus: nothing may be unknown, every line must be counted once, and the
// table is logged so `go test -v` shows the current coverage.
func TestCensusCorpus(t *testing.T) {
	files := corpustest.NativeFiles(t)
	var stderr bytes.Buffer
	var inputs []census.Input
	for _, f := range files {
		inputs = append(inputs, census.Input{Name: f})
	}
	rep, err := runCensus(context.Background(), streams{in: strings.NewReader(""), out: &bytes.Buffer{}, err: &stderr}, inputs, censusOptions{provider: "auto"})
	if err != nil {
		t.Fatalf("census: %v (stderr %q)", err, stderr.String())
	}
	var table bytes.Buffer
	if err := rep.WriteTable(&table); err != nil {
		t.Fatal(err)
	}
	t.Logf("census of %d corpus files:\n%s", len(files), table.String())
	if stderr.Len() > 0 {
		t.Errorf("census wrote to stderr:\n%s", stderr.String())
	}

	for _, msg := range rep.unknownList() {
		t.Errorf("%s", msg)
	}
	if rep.UnknownTypes != 0 || rep.UnknownFields != 0 {
		t.Errorf("census: %d unknown type(s), %d unknown field(s); want none", rep.UnknownTypes, rep.UnknownFields)
	}

	var wantLines, gotLines, counted int64
	for _, f := range files {
		wantLines += countLines(t, f)
	}
	seen := map[string]bool{}
	files = nil
	for _, g := range rep.Groups {
		seen[g.Provider] = true
		gotLines += g.Lines
		files = append(files, g.Files...)
		for _, ty := range g.Types {
			counted += ty.Count
			if ty.Disposition == event.DispositionIgnored && ty.Reason == "" {
				t.Errorf("%s %s: %s is ignored without a reason", g.Provider, g.CLIVersion, ty.NativeType)
			}
		}
	}
	if gotLines != wantLines || counted != wantLines {
		t.Errorf("census counted %d lines in groups and %d in types; the files have %d", gotLines, counted, wantLines)
	}
	if len(files) != len(corpustest.NativeFiles(t)) {
		t.Errorf("groups list %d files, want %d", len(files), len(corpustest.NativeFiles(t)))
	}
	for _, p := range providerNames() {
		if !seen[p] {
			t.Errorf("no census group for provider %s", p)
		}
	}

	// The same through the command line, as CI would run it.
	_, errOut, code := runEvcap(t, nil, append([]string{"census", "--fail-on-unknown"}, corpustest.NativeFiles(t)...)...)
	if code != 0 {
		t.Errorf("evcap census --fail-on-unknown over the corpus: exit %d\n%s", code, errOut)
	}
}

func countLines(t *testing.T, path string) int64 {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	n := int64(bytes.Count(data, []byte("\n")))
	if len(data) > 0 && data[len(data)-1] != '\n' {
		n++
	}
	return n
}

// TestCensusOlderCodexTree is census as a CI gate over a directory tree:
// the recordings of codex 0.20-0.45 (three protocols) have no unknown type
// or field, and the request logs beside them are skipped, not counted.
func TestCensusOlderCodexTree(t *testing.T) {
	out, errOut, code := runEvcap(t, nil, "census", "--json", "--fail-on-unknown=all", "../../testdata/corpus-extra/codex")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	var rep censusReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	files := 0
	for _, g := range rep.Groups {
		if g.Provider != "codex" {
			t.Errorf("group of %s in a codex tree", g.Provider)
		}
		files += len(g.Files)
	}
	if files < 30 || len(rep.Skipped) < 30 {
		t.Errorf("counted %d files and skipped %d; want the 30 recordings counted and their request logs skipped", files, len(rep.Skipped))
	}
	for _, s := range rep.Skipped {
		if !strings.HasSuffix(s, ".requests.jsonl") {
			t.Errorf("skipped %s, which is agent output", s)
		}
	}
}

// TestConformanceSuite runs every normalizer over the stream samples other
// projects published (testdata/conformance/<provider>/, sources in
// SOURCES.md): each is told as its directory's provider, has no unknown
// native type, and gives one tool call per tool call in its raw lines and
// the final text the raw lines carry.
func TestConformanceSuite(t *testing.T) {
	files, _ := filepath.Glob("../../testdata/conformance/*/*.jsonl")
	if len(files) < 4 {
		t.Fatalf("only %d conformance samples", len(files))
	}
	for _, file := range files {
		provider := filepath.Base(filepath.Dir(file))
		t.Run(provider+"/"+filepath.Base(file), func(t *testing.T) {
			_, errOut, code := runEvcap(t, nil, "census", "--fail-on-unknown=types", file)
			if code != 0 {
				t.Errorf("census --fail-on-unknown=types: exit %d\n%s", code, errOut)
			}
			s := streams{in: strings.NewReader(""), out: &bytes.Buffer{}, err: &bytes.Buffer{}}
			in, err := openNative(s, file)
			if err != nil {
				t.Fatal(err)
			}
			defer in.close()
			got, err := in.chooseProvider("auto")
			if err != nil || got != provider {
				t.Fatalf("told as %q (%v), want %s", got, err, provider)
			}
			n, _ := newNormalizer(provider)
			wantCalls, wantFinal := conformanceExpect(t, provider, file)
			var calls []string
			var final string
			for {
				ref, line, err := in.next()
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				for _, e := range n.Line(ref, line) {
					switch {
					case e.Kind == event.KindTool && e.Phase == event.PhaseCompleted:
						calls = append(calls, e.ToolCallID)
					case e.Kind == event.KindText && e.Phase == event.PhaseCompleted && provider != "claude":
						final = e.Text
					case e.Kind == event.KindResult && provider == "claude":
						final = e.Result.Text
					case e.Kind == event.KindUnknown:
						t.Errorf("line %d: unknown event %s", ref, e.NativeType)
					}
				}
			}
			if len(wantCalls) == 0 {
				t.Fatal("the sample has no tool call: it tests nothing")
			}
			if d := cmp.Diff(wantCalls, calls); d != "" {
				t.Errorf("tool calls differ from the raw lines (-raw +normalized):\n%s", d)
			}
			if wantFinal == "" || final != wantFinal {
				t.Errorf("final text %q, want %q (from the raw lines)", final, wantFinal)
			}
		})
	}
}

// conformanceExpect reads a sample's raw lines for the tool call ids, in
// order, and the final text, the way each provider's format carries them.
func conformanceExpect(t *testing.T, provider, file string) (calls []string, final string) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	add := func(id string) {
		if !seen[id] {
			seen[id] = true
			calls = append(calls, id)
		}
	}
	for _, l := range bytes.Split(data, []byte("\n")) {
		if !gjson.ValidBytes(l) {
			continue
		}
		v := gjson.ParseBytes(l)
		switch provider {
		case "claude":
			if v.Get("type").String() == "assistant" {
				for _, c := range v.Get("message.content").Array() {
					if c.Get("type").String() == "tool_use" {
						add(c.Get("id").String())
					}
				}
			}
			if v.Get("type").String() == "result" {
				final = v.Get("result").String()
			}
		case "codex":
			switch v.Get("item.type").String() {
			case "command_execution", "file_change", "mcp_tool_call", "web_search", "collab_tool_call":
				add(v.Get("item.id").String())
			case "agent_message":
				final = v.Get("item.text").String()
			}
		case "opencode":
			switch v.Get("type").String() {
			case "tool_use":
				add(v.Get("part.callID").String())
			case "text":
				final = v.Get("part.text").String()
			}
		default:
			t.Fatalf("no expectations for provider %s", provider)
		}
	}
	return calls, final
}
