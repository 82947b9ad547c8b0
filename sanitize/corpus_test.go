package sanitize_test

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/evcap/evcap/capture"
	"github.com/evcap/evcap/event"
	"github.com/evcap/evcap/internal/corpustest"
	"github.com/evcap/evcap/sanitize"
	"github.com/evcap/evcap/scan"
)

const corpusDir = "../testdata/corpus" // named by the tests of single captures

// corpusCapture is one real CLI output of the corpus turned into a capture.
type corpusCapture struct {
	name     string // provider/capture
	provider string
	src      string // stdout.jsonl or sse.txt
	stderr   string
	run      string // the recording machine's run directory
}

func corpusCaptures(t testing.TB) []corpusCapture {
	t.Helper()
	var out []corpusCapture
	for _, f := range corpustest.NativeFiles(t) {
		provider := corpustest.Provider(f)
		base := filepath.Base(f)
		capName := strings.TrimSuffix(strings.TrimSuffix(base, ".stdout.jsonl"), ".sse.txt")
		name := provider + "/" + capName
		if strings.HasSuffix(base, ".sse.txt") {
			name += "-sse"
		}
		out = append(out, corpusCapture{name: name, provider: provider, src: f,
			stderr: filepath.Join(filepath.Dir(f), capName+".stderr.txt"),
			run:    "/tmp/realcli/runs/" + provider + "/" + capName})
	}
	return out
}

// machine is what the recording machine's paths were: the corpus was
// recorded with a fresh HOME, project and TMPDIR under the run directory,
// and the CLIs installed under /tmp/realcli.
type machine struct {
	home, project string
	temp          []string
}

func (c corpusCapture) machine() machine {
	return machine{home: c.run + "/home", project: c.run + "/project", temp: []string{c.run + "/tmp", "/tmp/realcli"}}
}

func (m machine) options() sanitize.Options {
	return sanitize.Options{Home: m.home, DefaultProject: m.project, Temp: m.temp}
}

func (m machine) scanOptions() scan.Options {
	return scan.Options{Home: m.home, Project: m.project, Temp: m.temp}
}

// scanCapture is what evcap scan finds in a capture.
func scanCapture(t testing.TB, b []byte, name string, opts scan.Options) []scan.Finding {
	t.Helper()
	sc, err := scan.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	findings, err := sc.Read(bytes.NewReader(b), name, scan.KindCapture)
	if err != nil {
		t.Fatal(err)
	}
	return findings
}

func newNormalizer(provider string) event.Normalizer {
	return corpustest.Normalizers()[provider]()
}

// build records the corpus output through capture.New with a fixed clock
// and id: native lines, the normalized events and legacy markers derived
// from them, then the stderr lines. rewrite, when set, is applied to every
// line first (to move the capture to another machine's paths).
func (c corpusCapture) build(t testing.TB, rewrite func([]byte) []byte) []byte {
	t.Helper()
	return corpustest.Capture(t, corpustest.Recording{
		Native:     c.src,
		Stderr:     c.stderr,
		Begin:      capture.Start{EvcapVersion: "test", Provider: c.provider, Argv: []string{c.provider, "-p", "prompt"}, OS: "linux", Arch: "amd64"},
		CaptureID:  "01JDXQ4ZP8V6S1N0W9H3B5C7D2",
		Now:        corpustest.Clock(time.Date(2026, 11, 29, 19, 21, 46, 887e6, time.UTC), 7*time.Millisecond),
		SetSession: true,
		Rewrite:    rewrite,
	})
}

// each calls fn with a copy of every line of path.
func each(t testing.TB, path string, fn func([]byte)) {
	t.Helper()
	corpustest.EachLine(t, path, func(_ int64, line []byte) { fn(append([]byte(nil), line...)) })
}

func run(t testing.TB, in []byte, opts sanitize.Options) []byte {
	t.Helper()
	var out bytes.Buffer
	if _, err := sanitize.Sanitize(bytes.NewReader(in), "in.jsonl", &out, opts); err != nil {
		t.Fatalf("sanitize: %v", err)
	}
	return out.Bytes()
}

func jsonMarshal(v any) ([]byte, error) { return json.Marshal(v) }
