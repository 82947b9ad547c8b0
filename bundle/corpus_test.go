package bundle_test

import (
	"bytes"
	"encoding/json"
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

// corpusRun is one real CLI run of the corpus: its stdout and stderr files
// and what manifest.json says about it.
type corpusRun struct {
	Name     string // provider/capture
	Provider string
	Stdout   string
	Stderr   string
	Version  string
	Argv     []string
	ExitCode int
}

type manifestEntry struct {
	CLI      string   `json:"cli"`
	Version  string   `json:"version"`
	Capture  string   `json:"capture"`
	Argv     []string `json:"argv"`
	ExitCode int      `json:"exit_code"`
}

func corpusRuns(t testing.TB) []corpusRun {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(corpusDir, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	var entries []manifestEntry
	if err := json.Unmarshal(data, &entries); err != nil {
		t.Fatalf("corpus manifest.json: %v", err)
	}
	var out []corpusRun
	for _, e := range entries {
		stdout := filepath.Join(corpusDir, e.CLI, e.Capture+".stdout.jsonl")
		if _, err := os.Stat(stdout); err != nil {
			continue
		}
		out = append(out, corpusRun{Name: e.CLI + "/" + e.Capture, Provider: e.CLI, Stdout: stdout,
			Stderr:  filepath.Join(corpusDir, e.CLI, e.Capture+".stderr.txt"),
			Version: versionNumber(e.Version), Argv: e.Argv, ExitCode: e.ExitCode})
	}
	if len(out) < 20 {
		t.Fatalf("corpus: %d runs with stdout, expected the whole corpus", len(out))
	}
	return out
}

// versionNumber picks the version number out of a CLI's --version output
// ("2.1.197 (Claude Code)", "codex-cli 0.172.0").
func versionNumber(s string) string {
	for _, f := range strings.Fields(s) {
		if f[0] >= '0' && f[0] <= '9' {
			return f
		}
	}
	return s
}

func newNormalizer(provider string) (event.Normalizer, error) {
	switch provider {
	case "claude":
		return claude.New(), nil
	case "codex":
		return codex.New(), nil
	case "gemini":
		return gemini.New(), nil
	case "opencode":
		return opencode.New(), nil
	}
	return nil, os.ErrNotExist
}

// machine returns the sanitize and scan options for the recording
// machine of the corpus: each run had its own HOME, project and TMPDIR
// under a run directory, and the CLIs lived under /tmp/realcli.
func machine(r corpusRun) (sanitize.Options, sanitize.ScanOptions) {
	run := "/tmp/realcli/runs/" + r.Name
	temp := []string{run + "/tmp", "/tmp/realcli"}
	return sanitize.Options{Home: run + "/home", DefaultProject: run + "/project", Temp: temp},
		sanitize.ScanOptions{Home: run + "/home", Temp: temp}
}

// build records a corpus run through capture.New with a fixed clock, as an
// integration would: each stdout line, the normalized events and legacy
// markers derived from it, then the stderr lines and capture.end. edit,
// when set, may change each native record before it is written.
func build(t testing.TB, r corpusRun) []byte {
	t.Helper()
	f, err := os.Open(r.Stdout)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var buf bytes.Buffer
	now := time.Date(2026, 11, 29, 19, 21, 46, 0, time.UTC)
	clock := func() time.Time { now = now.Add(13 * time.Millisecond); return now }
	w := envelope.NewWriter(&buf, envelope.WriterOptions{CaptureID: "01JDXQ4ZP8V6S1N0W9H3B5C7D2", Now: clock, FlushInterval: -1})
	c := capture.New(w, capture.Options{Provider: r.Provider, Now: clock})
	c.Begin(capture.Start{EvcapVersion: "test", Provider: r.Provider, Argv: r.Argv, CLIName: r.Provider,
		CLIVersion: r.Version, OS: "linux", Arch: "amd64"})
	n, _ := newNormalizer(r.Provider)
	der := legacy.New()
	emit := func(evs []event.Event) {
		for _, e := range evs {
			if e.Kind == event.KindInit && e.SessionID != "" {
				c.SetSession(e.SessionID, "1")
			}
			c.Normalized(e)
			for _, m := range der.Event(e) {
				c.Legacy([]byte(m.Line), m.Cause)
			}
		}
	}
	lr := lines.NewReader(f)
	for {
		line, err := lr.Next()
		if err != nil {
			break
		}
		seq := c.Native(line)
		emit(n.Line(seq, line))
	}
	emit(n.End())
	for _, m := range der.End() {
		c.Legacy([]byte(m.Line), m.Cause)
	}
	if se, err := os.ReadFile(r.Stderr); err == nil {
		for _, l := range strings.SplitAfter(string(se), "\n") {
			if l = strings.TrimSuffix(l, "\n"); l != "" {
				c.Stderr([]byte(l))
			}
		}
	}
	code := r.ExitCode
	if err := c.Close(capture.End{ExitCode: &code, CleanEnd: true}); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}
