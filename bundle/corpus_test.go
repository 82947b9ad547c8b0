package bundle_test

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/evcap/evcap/capture"
	"github.com/evcap/evcap/event"
	"github.com/evcap/evcap/internal/corpustest"
	"github.com/evcap/evcap/sanitize"
	"github.com/evcap/evcap/scan"
)

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

func corpusRuns(t testing.TB) []corpusRun {
	t.Helper()
	var out []corpusRun
	for _, e := range corpustest.Manifest(t) {
		stdout := e.Stdout(t)
		if _, err := os.Stat(stdout); err != nil {
			continue
		}
		out = append(out, corpusRun{Name: e.Name(), Provider: e.CLI, Stdout: stdout, Stderr: e.Stderr(t),
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

// newNormalizer is the provider table bundle.Options asks for.
func newNormalizer(provider string) (event.Normalizer, error) {
	mk, ok := corpustest.Normalizers()[provider]
	if !ok {
		return nil, os.ErrNotExist
	}
	return mk(), nil
}

// machine returns the sanitize and scan options for the recording
// machine of the corpus: each run had its own HOME, project and TMPDIR
// under a run directory, and the CLIs lived under /tmp/realcli.
func machine(r corpusRun) (sanitize.Options, scan.Options) {
	run := "/tmp/realcli/runs/" + r.Name
	temp := []string{run + "/tmp", "/tmp/realcli"}
	return sanitize.Options{Home: run + "/home", DefaultProject: run + "/project", Temp: temp},
		scan.Options{Home: run + "/home", Temp: temp}
}

// build records a corpus run through capture.New with a fixed clock, as an
// integration would: each stdout line, the normalized events and legacy
// markers derived from it, then the stderr lines and capture.end.
func build(t testing.TB, r corpusRun) []byte {
	t.Helper()
	return corpustest.Capture(t, corpustest.Recording{
		Native: r.Stdout,
		Stderr: r.Stderr,
		Begin: capture.Start{EvcapVersion: "test", Provider: r.Provider, Argv: r.Argv, CLIName: r.Provider,
			CLIVersion: r.Version, OS: "linux", Arch: "amd64"},
		CaptureID:  "01JDXQ4ZP8V6S1N0W9H3B5C7D2",
		Now:        corpustest.Clock(time.Date(2026, 11, 29, 19, 21, 46, 0, time.UTC), 13*time.Millisecond),
		SetSession: true,
		ExitCode:   r.ExitCode,
	})
}
