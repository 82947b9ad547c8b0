package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "0.1.0-dev"

// exitError carries a process exit code through cobra's error return.
// Commands return it when the outcome is a verdict (validation failed,
// replay mismatched) rather than a crash.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit status %d", e.code)
	}
	return e.err.Error()
}

func (e *exitError) Unwrap() error { return e.err }

// streams are the standard streams a command reads and writes; tests pass
// their own.
type streams struct {
	in       io.Reader
	out, err io.Writer
	// ctx, when set, stops the reading of inputs opened with openInput
	// at the next read once it is done; run sets it to the
	// signal-aware context.
	ctx context.Context
}

// context is s.ctx, or a context that is never done when it is not set.
func (s streams) context() context.Context {
	if s.ctx == nil {
		return context.Background()
	}
	return s.ctx
}

// newRootCmd builds the whole command tree. Every subcommand is listed here
// explicitly, so the tree is visible in one place.
func newRootCmd(ctx context.Context, s streams) *cobra.Command {
	root := &cobra.Command{
		Use:   "evcap",
		Short: "Capture, sanitize and replay the event streams of coding-agent CLIs",
		Long: `evcap records what an agent CLI (Claude Code, Codex, opencode, Gemini CLI)
prints while it works, as versioned, sequenced, redacted JSONL envelopes, and
turns a bad run into a deterministic regression test.`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetIn(s.in)
	root.SetOut(s.out)
	root.SetErr(s.err)
	root.SetContext(ctx)
	root.Version = version
	root.SetVersionTemplate(versionLine() + "\n")
	root.AddCommand(
		newVersionCmd(s),
		newValidateCmd(s),
		newCatCmd(s),
		newDemoCmd(s),
		newFakeModelCmd(s),
		newNormalizeCmd(s),
		newCensusCmd(s),
		newRecordCmd(s),
		newRenderCmd(s),
		withAgainst(newReplayCmd(s), s),
		newPlayCmd(s),
		newShimCmd(s),
		newPromoteCmd(s),
		newBundleCmd(s),
		newViewCmd(s),
		newSanitizeCmd(s),
		newScanCmd(s),
		newMinimizeCmd(s),
		newImportCmd(s),
		newExportCmd(s),
	)
	applyConventions(root, s.err)
	return root
}

// run executes the command line and returns the process exit code.
func run(ctx context.Context, args []string, in io.Reader, out, errw io.Writer) int {
	ctx = withBudget(ctx, newMemoryBudget())
	s := streams{in: in, out: out, err: errw, ctx: ctx}
	root := newRootCmd(ctx, s)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if code := interruptCode(ctx); code != 0 {
		// Stopped by SIGINT or SIGTERM: whatever the command made of
		// the cancellation, the exit status says so, as a shell's does.
		fmt.Fprintln(errw, "evcap:", context.Cause(ctx))
		return code
	}
	if err == nil {
		return 0
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.err != nil {
			fmt.Fprintln(errw, "evcap:", ee.err)
		}
		return ee.code
	}
	fmt.Fprintln(errw, "evcap:", err)
	return 2
}
