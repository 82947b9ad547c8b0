package sanitize_test

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/evcap/evcap/capture"
	"github.com/evcap/evcap/envelope"
	"github.com/evcap/evcap/event"
	"github.com/evcap/evcap/internal/lines"
	"github.com/evcap/evcap/normalize/claude"
	"github.com/evcap/evcap/normalize/codex"
	"github.com/evcap/evcap/normalize/gemini"
	"github.com/evcap/evcap/normalize/opencode"
	"github.com/evcap/evcap/render/legacy"
	"github.com/evcap/evcap/sanitize"
)

const corpusDir = "../testdata/corpus"

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
	for _, pattern := range []string{"*/*.stdout.jsonl", "opencode/*.sse.txt"} {
		files, err := filepath.Glob(filepath.Join(corpusDir, pattern))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			provider := filepath.Base(filepath.Dir(f))
			base := filepath.Base(f)
			capName := strings.TrimSuffix(strings.TrimSuffix(base, ".stdout.jsonl"), ".sse.txt")
			name := provider + "/" + capName
			if strings.HasSuffix(base, ".sse.txt") {
				name += "-sse"
			}
			out = append(out, corpusCapture{name: name, provider: provider, src: f,
				stderr: filepath.Join(corpusDir, provider, capName+".stderr.txt"),
				run:    "/tmp/realcli/runs/" + provider + "/" + capName})
		}
	}
	if len(out) < 20 {
		t.Fatalf("corpus: found %d captures, expected the whole corpus", len(out))
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

func (m machine) scanOptions() sanitize.ScanOptions {
	return sanitize.ScanOptions{Home: m.home, Project: m.project, Temp: m.temp}
}

func newNormalizer(provider string) event.Normalizer {
	switch provider {
	case "claude":
		return claude.New()
	case "codex":
		return codex.New()
	case "gemini":
		return gemini.New()
	default:
		return opencode.New()
	}
}

// build records the corpus output through capture.New with a fixed clock
// and id: native lines, the normalized events and legacy markers derived
// from them, then the stderr lines. rewrite, when set, is applied to every
// line first (to move the capture to another machine's paths).
func (c corpusCapture) build(t testing.TB, rewrite func([]byte) []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	now := time.Date(2026, 11, 29, 19, 21, 46, 887e6, time.UTC)
	clock := func() time.Time { now = now.Add(7 * time.Millisecond); return now }
	w := envelope.NewWriter(&buf, envelope.WriterOptions{CaptureID: "01JDXQ4ZP8V6S1N0W9H3B5C7D2", Now: clock, FlushInterval: -1})
	cp := capture.New(w, capture.Options{Provider: c.provider, Now: clock})
	cp.Begin(capture.Start{EvcapVersion: "test", Provider: c.provider, Argv: []string{c.provider, "-p", "prompt"}, OS: "linux", Arch: "amd64"})
	norm := newNormalizer(c.provider)
	der := legacy.New()
	emit := func(evs []event.Event) {
		for _, e := range evs {
			if e.Kind == event.KindInit && e.SessionID != "" {
				cp.SetSession(e.SessionID, "1")
			}
			cp.Normalized(e)
			for _, m := range der.Event(e) {
				cp.Legacy([]byte(m.Line), m.Cause)
			}
		}
	}
	each(t, c.src, func(line []byte) {
		if rewrite != nil {
			line = rewrite(line)
		}
		seq := cp.Native(line)
		emit(norm.Line(seq, line))
	})
	emit(norm.End())
	for _, m := range der.End() {
		cp.Legacy([]byte(m.Line), m.Cause)
	}
	if _, err := os.Stat(c.stderr); err == nil {
		each(t, c.stderr, func(line []byte) {
			if rewrite != nil {
				line = rewrite(line)
			}
			cp.Stderr(line)
		})
	}
	code := 0
	if err := cp.Close(capture.End{ExitCode: &code, CleanEnd: true}); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func each(t testing.TB, path string, fn func([]byte)) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	lr := lines.NewReader(f)
	for {
		line, err := lr.Next()
		if err == io.EOF {
			return
		}
		if err != nil && len(line) == 0 {
			t.Fatal(err)
		}
		fn(append([]byte(nil), line...))
	}
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
