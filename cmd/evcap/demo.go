package main

import (
	_ "embed"
	"fmt"
	"os"
	"path/filepath"

	"github.com/evcap/evcap/schema"
	"github.com/spf13/cobra"
)

// sampleCapture is a capture of a real Claude Code 2.1.197 run (the
// "tools" scenario of the shared corpus, with partial messages): native
// lines and the normalized events derived from them. It is rebuilt by
// TestSampleCaptureIsCurrent with go test ./cmd/evcap -update.
//
//go:embed sample/claude-tools.jsonl
var sampleCapture []byte

const sampleName = "claude-tools.jsonl"

func newDemoCmd(s streams) *cobra.Command {
	var dir string
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "Run evcap on an embedded real capture (no agent CLI or network needed)",
		Long: `demo writes a capture embedded in evcap (a real Claude Code run that lists
files and reads a README) to a directory, validates it and lists it, so that
you can see what a capture holds before you record your own.`,
		Example: `  evcap demo
  evcap demo --dir /tmp/evcap-demo`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if dir == "" {
				d, err := os.MkdirTemp("", "evcap-demo-")
				if err != nil {
					return err
				}
				dir = d
			}
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return err
			}
			path := filepath.Join(dir, sampleName)
			if err := os.WriteFile(path, sampleCapture, 0o644); err != nil {
				return err
			}
			fmt.Fprintf(s.out, "== 1. An embedded capture of a real Claude Code run, written to\n   %s\n\n", path)
			fmt.Fprintf(s.out, "== 2. evcap validate %s\n", path)
			sch, err := schema.Compile(schema.EnvelopeFile)
			if err != nil {
				return err
			}
			bad, err := validateFile(s, sch, path, false)
			if err != nil {
				return err
			}
			if bad > 0 {
				return &exitError{code: 1, err: fmt.Errorf("the embedded capture is invalid (%d problems)", bad)}
			}
			fmt.Fprintf(s.out, "\n== 3. evcap cat --stage normalized_out,meta %s\n", path)
			cat := newCatCmd(s)
			cat.SetArgs([]string{"--stage", "normalized_out,meta", path})
			cat.SetOut(s.out)
			cat.SetErr(s.err)
			if err := cat.Execute(); err != nil {
				return err
			}
			fmt.Fprintf(s.out, "\nEach normalized_out line names (←) the native_in records it came from;\n"+
				"see them with: evcap cat %s\n", path)
			return nil
		},
	}
	cmd.Flags().StringVar(&dir, "dir", "", "directory to write the demo files to (default: a new temporary directory)")
	return cmd
}
