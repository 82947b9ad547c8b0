package minimize

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"time"

	"github.com/evcap/evcap/fixtures"
	"github.com/evcap/evcap/replay"
)

// Outcome is how one run of the user's program ended.
type Outcome struct {
	// Stdout is everything the program printed on stdout.
	Stdout []byte
	// Status is its exit status; -1 when it did not exit by itself (a
	// signal, a timeout).
	Status int
}

// Runner runs the user's program once with the native stdout of fx (the
// lines as the CLI printed them) on its stdin. The error is for a program
// that cannot be run at all; a program that fails is an Outcome.
type Runner func(ctx context.Context, fx *fixtures.Fixture) (Outcome, error)

// Failure is the way a program fails on a run: what ExecFails keeps equal
// while it reduces.
type Failure struct {
	Status int `json:"status"`
	// Golden tells whether a golden of the program's output was given.
	Golden bool `json:"golden"`
	// WrongLine is the first line of stdout that the golden does not
	// hold, and WrongLineNo its 1-based line number; 0 when every line
	// of stdout is in the golden (output only cut short, or no golden).
	WrongLine   string `json:"wrongLine,omitempty"`
	WrongLineNo int    `json:"wrongLineNo,omitempty"`
}

// same reports whether g is the same failure as f.
func (f Failure) same(g Failure) bool {
	return f.Status == g.Status && f.Golden == g.Golden && f.WrongLine == g.WrongLine
}

func (f Failure) String() string {
	s := fmt.Sprintf("exit status %d", f.Status)
	if f.Status == -1 {
		s = "killed (signal or timeout)"
	}
	if f.WrongLineNo > 0 {
		s += fmt.Sprintf("; stdout line %d is not in the golden: %q", f.WrongLineNo, f.WrongLine)
	}
	return s
}

// failureOf judges one outcome against the golden's lines (nil: none).
func failureOf(o Outcome, golden map[string]bool) Failure {
	f := Failure{Status: o.Status, Golden: golden != nil}
	if golden == nil {
		return f
	}
	for i, l := range bytes.Split(bytes.TrimSuffix(o.Stdout, []byte("\n")), []byte("\n")) {
		if len(o.Stdout) == 0 {
			break
		}
		if !golden[string(l)] {
			f.WrongLine, f.WrongLineNo = string(l), i+1
			break
		}
	}
	return f
}

// ExecFails runs the program over the whole run fx and returns a predicate
// that holds for a run on which the program fails the same way: the same
// exit status and, when golden (the program's expected output on the whole
// run) is not nil, the same first output line that the golden does not
// hold. The golden was written for the whole stream, so a reduced stream's
// output is compared with the set of the golden's lines, not position by
// position: a line the program should never print is what stays put.
//
// The whole run must fail: a non-zero exit status, or with a golden,
// output that differs from it; else ErrNoFailure.
func ExecFails(ctx context.Context, fx *fixtures.Fixture, run Runner, golden []byte) (Predicate, Failure, error) {
	var lines map[string]bool
	if golden != nil {
		lines = map[string]bool{}
		for _, l := range bytes.Split(golden, []byte("\n")) {
			lines[string(l)] = true
		}
	}
	o, err := run(ctx, fx)
	if err != nil {
		return nil, Failure{}, err
	}
	want := failureOf(o, lines)
	if o.Status == 0 && (golden == nil || bytes.Equal(o.Stdout, golden)) {
		return nil, want, ErrNoFailure
	}
	return func(ctx context.Context, sub *fixtures.Fixture) (bool, error) {
		o, err := run(ctx, sub)
		if err != nil {
			return false, err
		}
		if err := ctx.Err(); err != nil {
			return false, err
		}
		return failureOf(o, lines).same(want), nil
	}, want, nil
}

// ExecRunner runs a command with replay's exec runner (replay.Exec, the
// one behind evcap replay --exec): the native stdout of each run, exactly
// as the CLI printed it (stderr lines and gaps left out), on its stdin, in
// o.Chunking (whole when unset). A command that has not exited after
// timeout (when > 0) is killed and counts as Status -1.
func ExecRunner(o replay.ExecOptions, timeout time.Duration) Runner {
	if o.Chunking.Kind == "" {
		o.Chunking = replay.Chunking{Kind: replay.ChunkWhole}
	}
	return func(ctx context.Context, fx *fixtures.Fixture) (Outcome, error) {
		if timeout > 0 {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, timeout)
			defer cancel()
		}
		d, err := replay.Exec(ctx, replay.NativeStream(fx, false), o)
		if err != nil {
			return Outcome{}, err
		}
		return Outcome{Stdout: d.Output, Status: exitStatus(d.Err)}, nil
	}
}

// exitStatus is a command's exit status from how it ended: 0 for nil,
// the status of an *exec.ExitError, -1 for a signal or anything else.
func exitStatus(err error) int {
	if err == nil {
		return 0
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	return -1
}
