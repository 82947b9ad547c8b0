package replaytest_test

import (
	"bytes"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// chatbridge is the outside module under testdata: its own go.mod (with a
// replace pointing at this checkout), its own Claude stream-json parser
// and renderer, tested from evcap fixtures with this package's helpers.
const chatbridge = "testdata/chatbridge"

// copyModule copies the module to a temporary directory, pointing its
// replace at this checkout by absolute path, so that updates do not touch
// the source tree.
func copyModule(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	dst := t.TempDir()
	err = filepath.WalkDir(chatbridge, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(chatbridge, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if rel == "go.mod" {
			b = bytes.ReplaceAll(b, []byte("=> ../../../.."), []byte("=> "+root))
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

// goTest runs go test in dir offline (GOPROXY=off: the module cache and
// go.sum must hold everything) with extra environment.
func goTest(t *testing.T, dir string, env []string, args ...string) (string, error) {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), "go", append([]string{"test", "-count=1"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOWORK=off", "GOTOOLCHAIN=local",
		"EVCAP_UPDATE=", "CHATBRIDGE_PLANTED_BUG=")
	cmd.Env = append(cmd.Env, env...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// goldens returns the module's golden files by path.
func goldens(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".golden") {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		out[filepath.ToSlash(rel)] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestOutsideModule drives the outside module's own tests:
//   - go test ./... passes (its render package defines -update itself:
//     no "flag redefined" panic), and go test ./render -update rewrites
//     that package's goldens through its own flag;
//   - EVCAP_UPDATE=1 go test ./... rewrites stale goldens in every
//     package, wrap included, which defines no flag and imports nothing
//     of evcap;
//   - with the planted bug (each Read taken to end at a line end) the
//     render tests fail under byte and random chunkings only, and the
//     report names the chunking, the native line being fed and the update
//     command.
func TestOutsideModule(t *testing.T) {
	if testing.Short() {
		t.Skip("builds an outside module with go test")
	}
	dir := copyModule(t)
	want := goldens(t, dir)
	for _, p := range []string{"parse/testdata/claude-tools.events.golden", "render/testdata/claude-tools-partial.transcript.golden", "wrap/testdata/in.golden"} {
		if want[p] == "" {
			t.Fatalf("outside module lacks golden %s (have %d)", p, len(want))
		}
	}
	if out, err := goTest(t, dir, nil, "./..."); err != nil {
		t.Fatalf("go test ./... in the outside module: %v\n%s", err, out)
	}
	// The render package's own -update flag rewrites its goldens.
	stale := filepath.Join(dir, "render", "testdata", "claude-tools.transcript.golden")
	if err := os.WriteFile(stale, []byte("stale\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := goTest(t, dir, nil, "./render", "-update"); err != nil || strings.Contains(out, "flag redefined") {
		t.Fatalf("go test ./render -update: %v\n%s", err, out)
	}
	if b, _ := os.ReadFile(stale); string(b) != want["render/testdata/claude-tools.transcript.golden"] {
		t.Fatalf("go test ./render -update did not rewrite %s:\n%s", stale, b)
	}
	for p := range want {
		if err := os.WriteFile(filepath.Join(dir, p), []byte("stale\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if out, err := goTest(t, dir, []string{"EVCAP_UPDATE=1"}, "./..."); err != nil {
		t.Fatalf("EVCAP_UPDATE=1 go test ./...: %v\n%s", err, out)
	}
	got := goldens(t, dir)
	for p, w := range want {
		if got[p] != w {
			t.Errorf("EVCAP_UPDATE=1 did not restore %s:\n%s", p, got[p])
		}
	}
	out, err := goTest(t, dir, []string{"CHATBRIDGE_PLANTED_BUG=1"}, "./render")
	if err == nil {
		t.Fatalf("the planted chunking bug passed:\n%s", out)
	}
	for _, s := range []string{"chunking byte →", "chunking random:1 →", "being fed: native line 1 (sequence 2): {\"type\":\"system\"",
		"EVCAP_UPDATE=1 go test -run '^TestTranscript$/^claude-tools$'"} {
		if !strings.Contains(out, s) {
			t.Errorf("planted-bug report lacks %q:\n%s", s, out)
		}
	}
	for _, s := range []string{"chunking whole →", "chunking line →", "panic"} {
		if strings.Contains(out, s) {
			t.Errorf("planted-bug run reports %q, which must pass or not happen:\n%s", s, out)
		}
	}
}
