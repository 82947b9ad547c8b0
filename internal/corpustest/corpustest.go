// Package corpustest is test support for the real CLI corpus under
// testdata/corpus: it finds the corpus, reads its manifest, lists and
// streams its files, normalizes them with the right provider, and records a
// corpus run into a deterministic evcap capture the way an integration
// using package capture would.
//
// It is for _test.go files only. Its layer in internal/layers is above
// cmd/evcap, so a non-test import of it from any package fails
// TestImportDirection (test imports are not checked). It does not decide
// what a test asserts, and it never writes into the corpus.
package corpustest

import (
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evcap/evcap/event"
	"github.com/evcap/evcap/internal/lines"
	"github.com/evcap/evcap/provider"
	"github.com/evcap/evcap/providers"
)

// Dir returns the corpus directory relative to the test's working
// directory ("../testdata/corpus", "../../testdata/corpus"), found by
// walking up to the module's go.mod. It is relative, as the repository's
// tests have always named it, so paths that end up in outputs stay the same
// on every machine.
func Dir(t testing.TB) string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	up := ""
	for dir := wd; ; dir = filepath.Dir(dir) {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return filepath.Join(up, "testdata", "corpus")
		}
		if filepath.Dir(dir) == dir {
			t.Fatalf("no go.mod above %s", wd)
		}
		up = filepath.Join(up, "..")
	}
}

// Entry is what manifest.json says about one corpus run (the fields tests
// use; MANIFEST.md describes them all).
type Entry struct {
	CLI        string   `json:"cli"`
	Package    string   `json:"package"`
	Version    string   `json:"version"` // the CLI's --version output
	NPMVersion string   `json:"npm_version"`
	Capture    string   `json:"capture"`
	Argv       []string `json:"argv"`
	ExitCode   int      `json:"exit_code"`
}

// Name is provider/capture, the run's name in test names and goldens.
func (e Entry) Name() string { return e.CLI + "/" + e.Capture }

// Stdout is the path of the run's stdout JSONL.
func (e Entry) Stdout(t testing.TB) string {
	return filepath.Join(Dir(t), e.CLI, e.Capture+".stdout.jsonl")
}

// Stderr is the path of the run's stderr text (which may not exist).
func (e Entry) Stderr(t testing.TB) string {
	return filepath.Join(Dir(t), e.CLI, e.Capture+".stderr.txt")
}

// Manifest reads manifest.json. It fails the test when the manifest lists
// fewer than 20 runs: a test over a cut-down corpus would prove little.
func Manifest(t testing.TB) []Entry {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(Dir(t), "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	var entries []Entry
	if err := json.Unmarshal(raw, &entries); err != nil {
		t.Fatalf("corpus manifest.json: %v", err)
	}
	if len(entries) < 20 {
		t.Fatalf("corpus manifest lists %d runs, want at least 20", len(entries))
	}
	return entries
}

// NativeFiles lists the native output of every corpus run: each
// <provider>/*.stdout.jsonl, then opencode's raw SSE (*.sse.txt). It fails
// the test when it finds fewer than 20.
func NativeFiles(t testing.TB) []string {
	t.Helper()
	dir := Dir(t)
	var files []string
	for _, pat := range []string{"*/*.stdout.jsonl", "opencode/*.sse.txt"} {
		m, err := filepath.Glob(filepath.Join(dir, pat))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	if len(files) < 20 {
		t.Fatalf("found %d corpus captures under %s, want at least 20", len(files), dir)
	}
	return files
}

// Provider is the provider of a corpus file: the name of its directory.
func Provider(file string) string { return filepath.Base(filepath.Dir(file)) }

// Normalizers maps each corpus provider (directory name) to a constructor
// of a fresh normalizer. It returns a new map on every call.
func Normalizers() map[string]func() event.Normalizer {
	out := map[string]func() event.Normalizer{}
	for _, d := range providers.All() {
		out[d.Name] = func() event.Normalizer { return d.Normalizer(provider.Options{}) }
	}
	return out
}

// NewNormalizer returns a fresh normalizer for provider, failing the test
// for a provider the corpus does not have.
func NewNormalizer(t testing.TB, provider string) event.Normalizer {
	t.Helper()
	mk, ok := Normalizers()[provider]
	if !ok {
		t.Fatalf("no normalizer for provider %q", provider)
	}
	return mk()
}

// EachLine streams file and calls fn with every line, numbered from 1; a
// torn last line is passed on like the others. The slice is only valid
// during the call.
func EachLine(t testing.TB, file string, fn func(ref int64, line []byte)) {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := lines.NewReader(f)
	for {
		line, err := r.Next()
		if errors.Is(err, io.EOF) {
			return
		}
		if err != nil && !errors.Is(err, lines.ErrTorn) {
			t.Fatalf("%s: %v", file, err)
		}
		fn(r.Line(), line)
	}
}

// Normalize streams a corpus file through a fresh normalizer of its
// provider (Provider(file)), line numbers as causes.
func Normalize(t testing.TB, file string) []event.Event {
	t.Helper()
	n := NewNormalizer(t, Provider(file))
	var evs []event.Event
	EachLine(t, file, func(ref int64, line []byte) { evs = append(evs, n.Line(ref, line)...) })
	return append(evs, n.End()...)
}

// Base is a corpus file's name without its provider directory and its
// .stdout.jsonl or .txt ending ("tools", "serve-tools.sse").
func Base(file string) string {
	return strings.TrimSuffix(strings.TrimSuffix(filepath.Base(file), ".stdout.jsonl"), ".txt")
}
