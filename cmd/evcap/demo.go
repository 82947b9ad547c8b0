package main

import (
	"context"
	_ "embed"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

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
	var quick bool
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "Run the whole evcap loop on an embedded real capture (no agent CLI or network needed)",
		Long: `demo walks through what evcap is for, on a capture embedded in evcap (a real
Claude Code 2.1.197 run that lists a project's files and reads its README):

  1. play     the embedded capture stands in for the agent CLI
  2. record   evcap record runs "evcap play" as a real child process and
              records it, rendering it live, with redaction on
  3. validate the new capture is checked against the schema and sequences
  4. sanitize paths, ids and times become stable placeholders
  5. promote  the sanitized capture becomes a fixture with goldens
  6. replay   the fixture is replayed through the normalizer and renderers
  7. a planted rendering bug (text written twice) makes replay fail at the
     exact record, with the command that would accept the change

Everything is written under --dir (default: a new temporary directory).`,
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
			return runDemo(cmd.Context(), s, dir, quick)
		},
	}
	cmd.Flags().StringVar(&dir, "dir", "", "directory to write the demo files to (default: a new temporary directory)")
	cmd.Flags().BoolVar(&quick, "validate-only", false, "only write, validate and list the embedded capture")
	return cmd
}

// runDemo runs each step as the evcap command a user would type, printing
// the command first. Record runs this same executable as its child.
func runDemo(ctx context.Context, s streams, dir string, quick bool) error {
	sample := filepath.Join(dir, sampleName)
	if err := os.WriteFile(sample, sampleCapture, 0o644); err != nil {
		return err
	}
	step := func(title string, args ...string) int {
		fmt.Fprintf(s.out, "\n== %s\n$ evcap %s\n", title, strings.Join(args, " "))
		return run(ctx, args, strings.NewReader(""), s.out, s.out)
	}
	fmt.Fprintf(s.out, "The embedded capture of a real Claude Code run is at\n  %s\n", sample)
	if code := step("Validate it", "validate", sample); code != 0 {
		return &exitError{code: code, err: fmt.Errorf("the embedded capture is invalid")}
	}
	if quick {
		step("List its normalized events (← names the native lines each came from)", "cat", "--stage", "normalized_out,meta", sample)
		return nil
	}
	self, err := selfCommand()
	if err != nil {
		return err
	}
	recorded := filepath.Join(dir, "recorded.jsonl")
	if code := step("1-2. Play the capture as a stand-in agent CLI and record it live (the render below is evcap's terminal renderer)",
		"record", "--provider", "claude", "--color", "never", "-o", recorded, "--", self, "play", "--speed", "max", sample); code != 0 {
		return &exitError{code: code, err: fmt.Errorf("record failed")}
	}
	if code := step("3. Validate the new capture", "validate", recorded); code != 0 {
		return &exitError{code: code, err: fmt.Errorf("the recorded capture is invalid")}
	}
	step("   Its first records: capture.start, then each native line followed by the events derived from it",
		"cat", "--width", "120", "--stage", "meta,normalized_out", recorded)
	clean := filepath.Join(dir, "sanitized.jsonl")
	if code := step("4. Sanitize: machine paths, ids and times become stable placeholders",
		"sanitize", "--project", "/tmp/realcli/runs/claude/tools-partial/project", "--tmp", "/tmp/realcli", "-o", clean, recorded); code != 0 {
		return &exitError{code: code, err: fmt.Errorf("sanitize failed")}
	}
	if code := step("   Scan it: nothing secret or machine-specific is left", "scan", clean); code != 0 {
		return &exitError{code: code, err: fmt.Errorf("scan found something")}
	}
	fixtureRoot := filepath.Join(dir, "fixtures")
	if code := step("5. Promote it to a fixture with goldens", "promote", clean, "--name", "tools", "--dir", fixtureRoot,
		"--project", "/tmp/realcli/runs/claude/tools-partial/project", "--tmp", "/tmp/realcli"); code != 0 {
		return &exitError{code: code, err: fmt.Errorf("promote failed")}
	}
	fixture := filepath.Join(fixtureRoot, "claude", "tools")
	for _, mode := range [][]string{
		{"--mode", "native"},
		{"--mode", "normalized", "--format", "term"},
		{"--mode", "normalized", "--format", "chat"},
		{"--mode", "normalized", "--format", "groups"},
		{"--mode", "legacy"},
		{"--mode", "normalized", "--format", "term", "--rechunk", "7"},
	} {
		args := append([]string{"replay", fixture}, mode...)
		if code := step("6. Replay the fixture", args...); code != 0 {
			return &exitError{code: code, err: fmt.Errorf("replay of a fresh fixture failed")}
		}
	}
	code := step("7. Plant a rendering bug (each text delta written twice): replay points at the first diverging record",
		"replay", fixture, "--mode", "normalized", "--format", "term", "--inject", "duplicate-text")
	if code != 1 {
		return &exitError{code: 1, err: fmt.Errorf("the planted bug was not caught (replay exit %d)", code)}
	}
	fmt.Fprintf(s.out, "\nThat failure is what a regression test built from your own capture looks like.\n"+
		"Files are in %s. Next: evcap record -- <your agent CLI ...>\n", dir)
	return nil
}

// selfCommand is how to run this evcap again as a child: the path it was
// started as when that names an evcap binary (so wrappers that dispatch on
// the program name keep working), else the running executable.
func selfCommand() (string, error) {
	if filepath.Base(os.Args[0]) == "evcap" {
		if p, err := exec.LookPath(os.Args[0]); err == nil {
			return filepath.Abs(p)
		}
	}
	return os.Executable()
}
