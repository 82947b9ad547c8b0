package bundle_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/evcap/evcap/bundle"
	"github.com/evcap/evcap/capture"
	"github.com/evcap/evcap/envelope"
	"github.com/evcap/evcap/event"
)

// Build sanitizes and scans; WriteZip writes the archive. Here the capture
// is made on the spot, with one native line and the event derived from it.
func Example() {
	var file bytes.Buffer
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	clock := func() time.Time { now = now.Add(time.Second); return now }
	c := capture.New(envelope.NewWriter(&file, envelope.WriterOptions{CaptureID: "01JDXKQ5T8M3V9ZQ7G2H4N6P8R", Now: clock}),
		capture.Options{Provider: "codex", Now: clock})
	c.Begin(capture.Start{EvcapVersion: "example", CLIName: "codex", CLIVersion: "0.171.0", Argv: []string{"codex", "exec", "--json", "--api-key", "k"}})
	seq := c.Native([]byte(`{"type":"turn.failed","error":{"message":"stream closed"}}`))
	c.Normalized(event.Event{Kind: event.KindError, Phase: event.PhaseFailed, Error: &event.Error{Message: "stream closed", Fatal: true}, Cause: []int64{seq}})
	code := 1
	_ = c.Close(capture.End{ExitCode: &code})

	scratch, _ := os.CreateTemp("", "example-*.jsonl")
	defer os.Remove(scratch.Name())
	defer scratch.Close()
	b, err := bundle.Build(context.Background(), bytes.NewReader(file.Bytes()), "run.jsonl", scratch, bundle.Options{EvcapVersion: "example"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(b.Manifest.Agent.Name, b.Manifest.Agent.Version, *b.Manifest.Exit.Code, b.Manifest.Argv)
	for _, line := range strings.Split(string(b.Summary), "\n") {
		if strings.HasPrefix(line, "## ") || strings.HasPrefix(line, "**First error") {
			fmt.Println(line)
		}
	}
	var zip bytes.Buffer
	fmt.Println(b.WriteZip(&zip), zip.Len() > 0)
	// Output:
	// codex 0.171.0 1 [codex exec --json --api-key [REDACTED:flag]]
	// ## evcap bundle: codex 0.171.0, exit 1
	// **First error:** sequence 3 at +2.000s: error/failed fatal stream closed
	// <nil> true
}
