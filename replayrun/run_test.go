package replayrun_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evcap/evcap/fixtures"
	"github.com/evcap/evcap/replay"
	"github.com/evcap/evcap/replayrun"
)

// copyFixture copies the checked-in fixture claude/tools (fixture.json
// and its goldens) into a new directory, which it returns.
func copyFixture(t *testing.T) string {
	t.Helper()
	src := filepath.Join("..", "fixtures", "testdata", "claude", "tools")
	dir := filepath.Join(t.TempDir(), "tools")
	if err := os.CopyFS(dir, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestRecordedExecIsReplayed: RunExec with Update writes an exec golden
// and its command beside it; a plain Run of the fixture then runs that
// command again after the other checks, and NoExec leaves it out.
func TestRecordedExecIsReplayed(t *testing.T) {
	dir := copyFixture(t)
	ctx := context.Background()
	res, err := replayrun.RunExec(ctx, dir, replayrun.Options{Exec: "cat", Update: true, Chunkings: []string{"whole", "line"}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != replayrun.StatusUpdated || res.Golden != filepath.Join(dir, fixtures.GoldenDir, replay.ExecGolden("cat")) {
		t.Fatalf("RunExec --update: %+v", res)
	}
	if b, err := os.ReadFile(filepath.Join(dir, fixtures.GoldenDir, "exec-cat.command")); err != nil || string(b) != "cat\n" {
		t.Fatalf("exec-cat.command: %q, %v", b, err)
	}
	for _, c := range []struct {
		reason string
		o      replayrun.Options
		last   string
		n      int
	}{
		{"the recorded command runs after the five goldens", replayrun.Options{}, "exec cat", 6},
		{"NoExec leaves it out", replayrun.Options{NoExec: true}, "legacy", 5},
		{"a mode leaves it out", replayrun.Options{Mode: replay.ModeNative}, "native", 1},
	} {
		rep, err := replayrun.Run(ctx, []string{dir}, c.o)
		if err != nil {
			t.Fatalf("%s: %v", c.reason, err)
		}
		if len(rep.Results) != c.n || rep.Results[len(rep.Results)-1].Check != c.last || rep.Exit != 0 {
			t.Errorf("%s: got %+v, want %d checks ending with %q, exit 0", c.reason, rep, c.n, c.last)
		}
	}
}

// TestBadOptionsRunNothing: options that do not go together are an error
// of Run, before any path is read, and name the flag to change.
func TestBadOptionsRunNothing(t *testing.T) {
	for _, c := range []struct {
		reason string
		o      replayrun.Options
		want   string
	}{
		{"an unknown mode", replayrun.Options{Mode: "sideways"}, `unknown mode "sideways"`},
		{"exec flags without an exec command", replayrun.Options{Chunkings: []string{"line"}}, "go with --exec"},
		{"a mode with an exec command", replayrun.Options{Exec: "cat", Mode: replay.ModeNative}, "drop --mode"},
		{"cumulative without rechunking", replayrun.Options{Cumulative: true}, "--cumulative needs --rechunk"},
		{"an unknown fault", replayrun.Options{Inject: "gremlins"}, "want drop-delta"},
	} {
		rep, err := replayrun.Run(context.Background(), []string{"no-such-path"}, c.o)
		if err == nil || !strings.Contains(err.Error(), c.want) || len(rep.Results) != 0 {
			t.Errorf("%s: got %v and %d results, want an error with %q and none", c.reason, err, len(rep.Results), c.want)
		}
	}
}

// TestBadPathGoesOn: a path that cannot be read is a "load" error result,
// with exit status 2, and the other paths are still checked.
func TestBadPathGoesOn(t *testing.T) {
	rep, err := replayrun.Run(context.Background(), []string{"no-such-path", "../fixtures/testdata/claude/tools"}, replayrun.Options{Mode: replay.ModeLegacy})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Results) != 2 || rep.Results[0].Check != "load" || rep.Results[0].Status != replayrun.StatusError ||
		rep.Results[1].Status != replayrun.StatusOK || rep.Exit != 2 {
		t.Fatalf("got %+v", rep)
	}
}
