package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/evcap/evcap/event"
	"github.com/evcap/evcap/internal/corpustest"
)

// TestCensusCorpus runs the census over every native stream of the real CLI
// corpus: nothing may be unknown, every line must be counted once, and the
// table is logged so `go test -v` shows the current coverage.
func TestCensusCorpus(t *testing.T) {
	files := corpustest.NativeFiles(t)
	var stderr bytes.Buffer
	var inputs []censusInput
	for _, f := range files {
		inputs = append(inputs, censusInput{name: f})
	}
	rep, err := runCensus(context.Background(), streams{in: strings.NewReader(""), out: &bytes.Buffer{}, err: &stderr}, inputs, censusOptions{provider: "auto"})
	if err != nil {
		t.Fatalf("census: %v (stderr %q)", err, stderr.String())
	}
	var table bytes.Buffer
	writeCensusTable(&table, rep)
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
