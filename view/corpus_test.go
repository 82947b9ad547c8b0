package view_test

import (
	"testing"
	"time"

	"github.com/evcap/evcap/capture"
	"github.com/evcap/evcap/internal/corpustest"
)

// corpusCapture records testdata/corpus/<provider>/<name>.stdout.jsonl
// through capture.New with a fixed clock, as an integration would: each
// native line, the normalized events and legacy markers derived from it,
// then the stderr lines and capture.end with the given exit code.
func corpusCapture(t testing.TB, provider, name string, exitCode int) []byte {
	t.Helper()
	e := corpustest.Entry{CLI: provider, Capture: name}
	return corpustest.Capture(t, corpustest.Recording{
		Native: e.Stdout(t),
		Stderr: e.Stderr(t),
		Begin: capture.Start{EvcapVersion: "test", Provider: provider, CLIName: provider, OS: "linux", Arch: "amd64",
			Argv: []string{provider, "-p", "prompt"}},
		CaptureID: "01JDXQ4ZP8V6S1N0W9H3B5C7D2",
		Now:       corpustest.Clock(time.Date(2026, 11, 29, 19, 21, 46, 0, time.UTC), 37*time.Millisecond),
		ExitCode:  exitCode,
	})
}
