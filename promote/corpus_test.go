package promote_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/evcap/evcap/capture"
	"github.com/evcap/evcap/internal/corpustest"
	"github.com/evcap/evcap/promote"
)

// TestEveryCorpusStreamSanitizesClean: what sanitize writes of a capture
// of any real CLI's output passes scan, the gate promote and bundle run
// after it; a stream it leaves a finding in cannot be promoted. The
// corpus ran in /tmp/realcli/runs/..., a temporary directory here. (Codex
// diffs name files outside the repository a//tmp/...; sanitize left
// those before 2026-12-03 and scan refused them.)
func TestEveryCorpusStreamSanitizesClean(t *testing.T) {
	files := corpustest.NativeFiles(t)
	extra, _ := filepath.Glob("../testdata/corpus-extra/*/*/*.stdout.jsonl")
	files = append(files, extra...)
	m := promote.Machine{Home: "/home/someone", DefaultProject: t.TempDir(), Temp: []string{"/tmp"}}
	nested := map[string]bool{}
	for _, f := range extra {
		nested[f] = true
	}
	for _, file := range files {
		provider := corpustest.Provider(file)
		if nested[file] {
			provider = filepath.Base(filepath.Dir(filepath.Dir(file))) // corpus-extra/<provider>/<version>/
		}
		capt := corpustest.Capture(t, corpustest.Recording{
			Native:    file,
			Begin:     capture.Start{EvcapVersion: "test", Provider: provider, Argv: []string{provider}, OS: "linux", Arch: "amd64"},
			CaptureID: "01JDXQ4ZP8V6S1N0W9H3B5C7D2",
			Now:       corpustest.Clock(time.Date(2026, 12, 3, 8, 0, 0, 0, time.UTC), time.Millisecond),
		})
		out, err := os.CreateTemp(t.TempDir(), "clean-*.jsonl")
		if err != nil {
			t.Fatal(err)
		}
		findings, err := promote.SanitizeAndScan(context.Background(), bytes.NewReader(capt), filepath.Base(file), out, m)
		out.Close()
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		for _, f := range findings {
			t.Errorf("%s: sanitized, scan still finds %s at line %d (%s)", file, f.Rule, f.Line, f.Pointer)
		}
	}
	if len(files) < 40 {
		t.Fatalf("only %d corpus streams", len(files))
	}
}
