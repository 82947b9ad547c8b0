package main

import (
	"bytes"
	"os"
	"testing"
	"time"

	"github.com/evcap/evcap/capture"
	"github.com/evcap/evcap/envelope"
	"github.com/evcap/evcap/internal/lines"
	"github.com/evcap/evcap/normalize/claude"
	"github.com/sebdah/goldie/v2"
)

// TestSampleCaptureIsCurrent rebuilds the embedded demo capture from the
// real corpus file with a fixed clock and capture id, and compares it with
// the committed one (go test ./cmd/evcap -update rewrites it).
func TestSampleCaptureIsCurrent(t *testing.T) {
	f, err := os.Open("../../testdata/corpus/claude/tools-partial.stdout.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tick := time.Date(2026, 11, 29, 19, 32, 5, 0, time.UTC)
	clock := func() time.Time { tick = tick.Add(7 * time.Millisecond); return tick }
	var out bytes.Buffer
	w := envelope.NewWriter(&out, envelope.WriterOptions{CaptureID: "01KB8J6Z0000000000000DEMO0", Now: clock, FlushInterval: -1})
	c := capture.New(w, capture.Options{Provider: "claude", Now: clock})
	c.Begin(capture.Start{EvcapVersion: "demo", Provider: "claude", OS: "linux", Arch: "amd64", CLIName: "claude", CLIVersion: "2.1.197",
		Argv: []string{"claude", "-p", "What is in this project? List the files, then read the README and summarise it.",
			"--output-format", "stream-json", "--verbose", "--include-partial-messages"}})
	n := claude.New()
	lr := lines.NewReader(f)
	for {
		line, err := lr.Next()
		if err != nil {
			break
		}
		seq := c.Native(line)
		for _, e := range n.Line(seq, line) {
			c.Normalized(e)
		}
	}
	for _, e := range n.End() {
		c.Normalized(e)
	}
	code := 0
	if err := c.Close(capture.End{ExitCode: &code, CleanEnd: true}); err != nil {
		t.Fatal(err)
	}
	g := goldie.New(t, goldie.WithFixtureDir("sample"), goldie.WithNameSuffix(".jsonl"))
	g.Assert(t, "claude-tools", out.Bytes())
}
