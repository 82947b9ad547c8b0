package replaytest_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evcap/evcap/replay"
	"github.com/evcap/evcap/replay/replaytest"
)

// TestImportRegistersNoFlags builds a program that imports replay and
// replaytest and lists the flags on flag.CommandLine: there must be none.
func TestImportRegistersNoFlags(t *testing.T) {
	out, err := exec.Command("go", "run", "./testdata/noflags").CombinedOutput()
	if err != nil {
		t.Fatalf("go run ./testdata/noflags: %v\n%s", err, out)
	}
	if strings.TrimSpace(string(out)) != "0 flags" {
		t.Fatalf("importing replay and replaytest registers flags:\n%s", out)
	}
}

// TestStream: the correct pipeline matches its golden under every default
// chunking (the golden is rewritten under EVCAP_UPDATE=1).
func TestStream(t *testing.T) {
	replaytest.Stream(t, fixture, chatPipeline, replaytest.StreamOptions{
		Golden: filepath.Join(fixture, "golden", "go-chat.golden")})
	replaytest.Events(t, fixture, func() replaytest.LineNormalizer[chatEvent] { return chatNormalizer{} },
		replaytest.StreamOptions{Golden: filepath.Join(fixture, "golden", "go-events.golden")})
}

// TestStreamCatchesChunkingBug: the whole-lines pipeline passes whole and
// line chunkings and fails byte and every random seed, and each report
// names the chunking, a native line with its sequence and the update hint.
func TestStreamCatchesChunkingBug(t *testing.T) {
	golden := filepath.Join(fixture, "golden", "go-chat.golden")
	rep, err := replaytest.CheckStream(t.Context(), fixture, wholeLinesPipeline,
		replaytest.StreamOptions{Golden: golden, UpdateHint: "EVCAP_UPDATE=1 go test -run TestX"})
	if err != nil {
		t.Fatal(err)
	}
	failed := map[string]bool{}
	for _, m := range rep.Mismatches {
		failed[m.Chunking] = true
		text := m.Error()
		for _, want := range []string{"chunking: " + m.Chunking, "being fed: native line", "(sequence ", "EVCAP_UPDATE=1 go test -run TestX"} {
			if !strings.Contains(text, want) {
				t.Errorf("%s report lacks %q:\n%s", m.Chunking, want, text)
			}
		}
		if len(m.Fed) == 0 || m.Sequence == 0 {
			t.Errorf("%s report names no native line: %+v", m.Chunking, m)
		}
	}
	for _, c := range replay.DefaultChunkings() {
		want := c.Kind == replay.ChunkByte || c.Kind == replay.ChunkRandom
		if failed[c.String()] != want {
			t.Errorf("chunking %s: failed %v, want %v", c, failed[c.String()], want)
		}
	}
}

// TestStreamUpdate: an update writes the golden only when it changes,
// refuses when chunkings disagree, and clean removes only the test's own
// goldens.
func TestStreamUpdate(t *testing.T) {
	dir := t.TempDir()
	b, err := os.ReadFile(filepath.Join(fixture, "fixture.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "fixture.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	gold := filepath.Join(dir, "golden")
	if err := os.MkdirAll(gold, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"normalized.golden", "go-TestOther.golden", "go-TestMine.stderr.golden"} {
		if err := os.WriteFile(filepath.Join(gold, n), []byte("keep?\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	opts := replaytest.StreamOptions{Golden: filepath.Join(gold, "go-TestMine.golden"), Update: true}
	rep, err := replaytest.CheckStream(t.Context(), dir, chatPipeline, opts)
	if err != nil || !rep.Updated || len(rep.Mismatches) > 0 {
		t.Fatalf("first update: %+v, %v", rep, err)
	}
	rep, err = replaytest.CheckStream(t.Context(), dir, chatPipeline, opts)
	if err != nil || rep.Updated {
		t.Fatalf("second update changed something: %+v, %v", rep, err)
	}
	rep, err = replaytest.CheckStream(t.Context(), dir, wholeLinesPipeline, opts)
	if err != nil || rep.Updated || len(rep.Mismatches) == 0 {
		t.Fatalf("update with disagreeing chunkings: %+v, %v", rep, err)
	}
	opts.Clean = true
	if _, err := replaytest.CheckStream(t.Context(), dir, chatPipeline, opts); err != nil {
		t.Fatal(err)
	}
	for n, want := range map[string]bool{"normalized.golden": true, "go-TestOther.golden": true,
		"go-TestMine.stderr.golden": false, "go-TestMine.golden": true} {
		if _, err := os.Stat(filepath.Join(gold, n)); (err == nil) != want {
			t.Errorf("after clean, %s exists = %v, want %v", n, err == nil, want)
		}
	}
}
