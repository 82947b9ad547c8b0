package view_test

import (
	"bytes"
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
)

const corpusDir = "../testdata/corpus"

func newNormalizer(provider string) event.Normalizer {
	switch provider {
	case "claude":
		return claude.New()
	case "codex":
		return codex.New()
	case "gemini":
		return gemini.New()
	}
	return opencode.New()
}

// corpusCapture records testdata/corpus/<provider>/<name>.stdout.jsonl
// through capture.New with a fixed clock, as an integration would: each
// native line, the normalized events and legacy markers derived from it,
// then the stderr lines and capture.end with the given exit code.
func corpusCapture(t testing.TB, provider, name string, exitCode int) []byte {
	t.Helper()
	f, err := os.Open(filepath.Join(corpusDir, provider, name+".stdout.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var buf bytes.Buffer
	now := time.Date(2026, 11, 29, 19, 21, 46, 0, time.UTC)
	clock := func() time.Time { now = now.Add(37 * time.Millisecond); return now }
	w := envelope.NewWriter(&buf, envelope.WriterOptions{CaptureID: "01JDXQ4ZP8V6S1N0W9H3B5C7D2", Now: clock, FlushInterval: -1})
	c := capture.New(w, capture.Options{Provider: provider, Now: clock})
	c.Begin(capture.Start{EvcapVersion: "test", Provider: provider, CLIName: provider, OS: "linux", Arch: "amd64",
		Argv: []string{provider, "-p", "prompt"}})
	n := newNormalizer(provider)
	der := legacy.New()
	emit := func(evs []event.Event) {
		for _, e := range evs {
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
		emit(n.Line(c.Native(line), line))
	}
	emit(n.End())
	for _, m := range der.End() {
		c.Legacy([]byte(m.Line), m.Cause)
	}
	if se, err := os.ReadFile(filepath.Join(corpusDir, provider, name+".stderr.txt")); err == nil {
		for _, l := range strings.Split(strings.TrimRight(string(se), "\n"), "\n") {
			if l != "" {
				c.Stderr([]byte(l))
			}
		}
	}
	if err := c.Close(capture.End{ExitCode: &exitCode, CleanEnd: true}); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}
