package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evcap/evcap/fixtures"
	"github.com/evcap/evcap/promote"
	"github.com/evcap/evcap/replay"
)

func replayRun(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(context.Background(), args, strings.NewReader(""), &out, &errb)
	return code, out.String(), errb.String()
}

// TestReplayCheckedInTree: evcap replay fixtures/testdata replays every
// checked-in fixture against every golden it has, in one command.
func TestReplayCheckedInTree(t *testing.T) {
	want := 0
	err := fixtures.Walk(os.DirFS(fixturesDir), ".", func(dir string, _ *fixtures.Fixture) error {
		names := []string{replay.NormalizedGolden, replay.LegacyGolden}
		for f := range promote.Formats() {
			names = append(names, replay.FormatGolden(f))
		}
		for _, n := range names {
			if _, err := os.Stat(filepath.Join(fixturesDir, dir, fixtures.GoldenDir, n)); err == nil {
				want++
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if want < 100 {
		t.Fatalf("only %d goldens under %s", want, fixturesDir)
	}
	code, out, errs := replayRun(t, "replay", fixturesDir)
	if code != 0 {
		t.Fatalf("evcap replay %s: exit %d\n%s%s", fixturesDir, code, out, errs)
	}
	if !strings.Contains(out, fmt.Sprintf("replay: %d checks: %d ok\n", want, want)) {
		t.Fatalf("evcap replay %s did not check all %d goldens:\n%s", fixturesDir, want, out)
	}
}

// TestReplayExecProviders: evcap replay --exec re-drives the Node and
// Python renderers of replay/testdata/exec from a fixture of each
// provider; the classic Node bug passes whole and line chunking and is
// caught by random chunking, naming the native line fed.
func TestReplayExecProviders(t *testing.T) {
	// Mostly waiting on node and python3: the test and its providers run
	// beside the other parallel tests.
	t.Parallel()
	for _, tool := range []string{"node", "python3"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed", tool)
		}
	}
	progs, err := filepath.Abs(filepath.Join("..", "..", "replay", "testdata", "exec"))
	if err != nil {
		t.Fatal(err)
	}
	node := "node " + filepath.Join(progs, "render.js")
	python := "python3 " + filepath.Join(progs, "render.py")
	bug := "node " + filepath.Join(progs, "render-classic-bug.js")
	for _, p := range []string{"claude", "codex", "gemini", "opencode"} {
		t.Run(p, func(t *testing.T) {
			t.Parallel()
			dir := filepath.Join(t.TempDir(), "tools")
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			b, err := os.ReadFile(filepath.Join(fixturesDir, p, "tools", fixtures.FileName))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, fixtures.FileName), b, 0o644); err != nil {
				t.Fatal(err)
			}
			if code, out, errs := replayRun(t, "replay", dir, "--exec", node, "--name", "render", "--update"); code != 0 || !strings.Contains(out, "wrote ") {
				t.Fatalf("--update: exit %d\n%s%s", code, out, errs)
			}
			for _, cmd := range []string{node, python} {
				if code, out, errs := replayRun(t, "replay", dir, "--exec", cmd, "--name", "render",
					"--chunking", "whole", "--chunking", "line", "--chunking", "random:1"); code != 0 {
					t.Errorf("%s: exit %d\n%s%s", cmd, code, out, errs)
				}
			}
			if code, out, errs := replayRun(t, "replay", dir, "--exec", bug, "--name", "render", "--chunking", "whole", "--chunking", "line"); code != 0 {
				t.Errorf("classic bug, whole and line: exit %d\n%s%s", code, out, errs)
			}
			code, out, errs := replayRun(t, "replay", dir, "--exec", bug, "--name", "render", "--chunking", "random:1")
			if code != 1 {
				t.Fatalf("classic bug, random:1: exit %d, want 1\n%s%s", code, out, errs)
			}
			for _, s := range []string{"chunking: random:1", "being fed: native line ", "stopped with: exit status 1", "SyntaxError"} {
				if !strings.Contains(out, s) {
					t.Errorf("classic bug report lacks %q:\n%s", s, out)
				}
			}
		})
	}
}
