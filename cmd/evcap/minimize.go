package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/evcap/evcap/fixtures"
	"github.com/evcap/evcap/minimize"
	"github.com/evcap/evcap/replay"
	"github.com/evcap/evcap/source"
	"github.com/spf13/cobra"
)

type minimizeFlags struct {
	exec, test string
	out        string
	fixture    bool
	golden     string
	name       string
	timeout    time.Duration
	dir        string
}

func newMinimizeCmd(s streams) *cobra.Command {
	var f minimizeFlags
	cmd := &cobra.Command{
		Use:   "minimize CAPTURE|FIXTURE (--exec 'CMD' | --test 'CMD') -o OUT",
		Short: "Shrink a capture to the fewest native lines on which your program still fails the same way",
		Long: `minimize cuts a capture (or a fixture) down, by delta debugging over its
native lines, to the fewest lines that still make your failure happen, and
writes that run to OUT: a capture, or with --fixture a fixture directory
(OUT/fixture.json). A record derived from native lines (normalized_out,
legacy_out) is kept exactly when all its lines are; meta records stay. It
prints the counts before and after.

What "fails" means:

  --exec 'CMD'   CMD (run with sh -c) gets the run's native stdout on its stdin,
                 exactly as the CLI printed it; it fails the same way when it
                 exits with the same status as on the whole run and, when there
                 is a golden of its output (--golden FILE, or --name NAME for
                 a fixture's golden/exec-NAME.golden), prints the same first
                 line that the golden does not hold.
  --test 'CMD'   the reduced run is written over the input file itself (a
                 fixture's fixture.json, or the capture file) while CMD runs,
                 typically 'go test ./pkg -run TestX'; it fails when CMD exits
                 with the same non-zero status as on the whole run. The original
                 waits in FILE.evcap-orig and is put back at the end, also on
                 Ctrl-C. Go's test cache is off for these runs (-count=1).

The whole run must fail first; minimize exits 1 when it does not. A try that
runs longer than --timeout is killed and counts as a different failure.`,
		Example: `  evcap minimize run.jsonl --exec 'python3 bridge.py' -o small.jsonl
  evcap minimize fixtures/testdata/claude/long-text --exec 'node render.js' --name render --fixture -o /tmp/small
  evcap minimize testdata/run --test 'go test ./parser -run TestParseFixture' -o small.jsonl`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runMinimize(cmd, s, args[0], f)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.exec, "exec", "", "the program that fails, fed the native stdout on its stdin (sh -c)")
	fl.StringVar(&f.test, "test", "", "the command that fails while the reduced run is in place (sh -c), e.g. 'go test ./pkg -run TestX'")
	fl.StringVarP(&f.out, "output", "o", "", "where to write the minimized run (required)")
	fl.BoolVar(&f.fixture, "fixture", false, "write a fixture directory (OUT/fixture.json) instead of a capture")
	fl.StringVar(&f.golden, "golden", "", "with --exec: the expected output of CMD on the whole run")
	fl.StringVar(&f.name, "name", "", "with --exec on a fixture: use its golden/exec-NAME.golden")
	fl.DurationVar(&f.timeout, "timeout", 2*time.Minute, "longest a single try may run")
	fl.StringVar(&f.dir, "workdir", "", "directory to run CMD in (default: the current one)")
	cmd.MarkFlagsMutuallyExclusive("exec", "test")
	cmd.MarkFlagsOneRequired("exec", "test")
	_ = cmd.MarkFlagRequired("output")
	return cmd
}

func runMinimize(cmd *cobra.Command, s streams, name string, f minimizeFlags) error {
	bad := func(err error) error { return &exitError{code: 2, err: err} }
	if f.exec == "" && (f.golden != "" || f.name != "") {
		return bad(errors.New("--golden and --name go with --exec"))
	}
	if f.golden != "" && f.name != "" {
		return bad(errors.New("--golden and --name: give one"))
	}
	ctx := cmd.Context()
	in, err := source.OpenContext(ctx, name, s.in)
	if err != nil {
		return bad(err)
	}
	defer in.Close()
	var c *minimize.Capture
	switch in.Kind {
	case source.KindFixture:
		c, err = minimize.ReadCapture(source.FixtureRecords(in.Fixture), name)
		if err == nil {
			c.Fixture = in.Fixture
		}
	case source.KindCapture:
		c, err = minimize.ReadCapture(withContext(s.ctx, in.Reader()), name)
	default:
		err = fmt.Errorf("%s is raw agent CLI output; minimize needs a capture or a fixture (evcap record --stdin makes a capture of it)", name)
	}
	if err != nil {
		return bad(err)
	}

	var fails minimize.Predicate
	var failure string
	var restore func() error
	if f.exec != "" {
		golden, err := minimizeGolden(in, f)
		if err != nil {
			return bad(err)
		}
		var want minimize.Failure
		fails, want, err = minimize.ExecFails(ctx, c.Fixture, execRunner(f), golden)
		if errors.Is(err, minimize.ErrNoFailure) {
			return &exitError{code: 1, err: fmt.Errorf("%s: %s does not fail on the whole run (%v); there is nothing to minimize", name, f.exec, want)}
		}
		if err != nil {
			return bad(err)
		}
		failure = want.String()
	} else {
		if in.Path == "" {
			return bad(errors.New("--test writes the reduced run over the input file: give a file, not standard input"))
		}
		write := c.WriteCapture
		if in.Kind == source.KindFixture {
			write = minimize.WriteFixture
		}
		place, err := minimize.InPlace(in.Path, write)
		if err != nil {
			return bad(err)
		}
		restore = place.Restore
		defer place.Restore()
		fmt.Fprintf(s.err, "evcap: %s is rewritten while %q runs; the original waits in %s\n", in.Path, f.test, place.Backup())
		var out []byte
		fails, out, err = minimize.CommandFails(ctx, c.Fixture, minimize.Command{Line: f.test, Dir: f.dir}, place)
		if errors.Is(err, minimize.ErrNoFailure) {
			return &exitError{code: 1, err: fmt.Errorf("%s: %s passes on the whole run; there is nothing to minimize\n%s", name, f.test, out)}
		}
		if err != nil {
			return bad(err)
		}
		failure = "the command fails"
	}
	res, err := minimize.Fixture(ctx, c.Fixture, withTimeout(fails, f.timeout))
	if restore != nil {
		if rerr := restore(); rerr != nil && err == nil {
			err = rerr
		}
	}
	if err != nil {
		return bad(err)
	}
	written, err := writeMinimized(c, res.Fixture, f)
	if err != nil {
		return bad(err)
	}
	what, before, after := "records", len(c.Records), len(minimize.SubsetRecords(c.Records, res.Kept))
	if f.fixture {
		what, before, after = "events", res.Before.Events, res.After.Events
	}
	fmt.Fprintf(s.out, "minimized %s: %d native lines (%d %s) -> %d native line(s) (%d %s) in %d tries; still fails: %s\nwrote %s\n",
		name, res.Before.NativeLines, before, what, res.After.NativeLines, after, what, res.Stats.Tests, failure, written)
	return nil
}

// execRunner is the --exec predicate's runner: replay's exec runner, the
// one evcap replay --exec uses, feeding the whole stream at once.
func execRunner(f minimizeFlags) minimize.Runner {
	return minimize.ExecRunner(replay.ExecOptions{Command: f.exec, Dir: f.dir}, 0)
}

// withTimeout bounds each try; a try cut off by it is not the failure.
func withTimeout(p minimize.Predicate, d time.Duration) minimize.Predicate {
	if d <= 0 {
		return p
	}
	return func(ctx context.Context, fx *fixtures.Fixture) (bool, error) {
		tctx, cancel := context.WithTimeout(ctx, d)
		defer cancel()
		ok, err := p(tctx, fx)
		if err != nil && ctx.Err() == nil && tctx.Err() != nil {
			return false, nil
		}
		return ok, err
	}
}

// minimizeGolden reads the --exec golden, nil when there is none.
func minimizeGolden(in *source.Input, f minimizeFlags) ([]byte, error) {
	path := f.golden
	if f.name != "" {
		if in.Kind != source.KindFixture {
			return nil, fmt.Errorf("--name %s: %s is not a fixture; give the golden with --golden", f.name, in.Name)
		}
		path = filepath.Join(filepath.Dir(in.Path), fixtures.GoldenDir, "exec-"+f.name+".golden")
	}
	if path == "" {
		return nil, nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("exec golden: %w", err)
	}
	return b, nil
}

// writeMinimized writes the reduced run as a capture or a fixture
// directory and returns the file written.
func writeMinimized(c *minimize.Capture, fx *fixtures.Fixture, f minimizeFlags) (string, error) {
	path := f.out
	write := func(w io.Writer) error { return c.WriteCapture(w, fx) }
	if f.fixture {
		if err := os.MkdirAll(f.out, 0o755); err != nil {
			return "", err
		}
		path = filepath.Join(f.out, fixtures.FileName)
		write = func(w io.Writer) error { return minimize.WriteFixture(w, fx) }
	}
	return path, writeAtomically(path, write)
}
