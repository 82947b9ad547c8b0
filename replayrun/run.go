package replayrun

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/evcap/evcap/fixtures"
	"github.com/evcap/evcap/replay"
)

// Run checks every path with o: each input a path expands to (see
// package doc) gets the checks its plan lists, in order, and the Report
// holds a Result per check. A path that cannot be read is a Result with
// StatusError (check "load") and the other paths go on; once ctx is done
// no further input is started. The error is non-nil only when o is not
// valid (Options.Check), and then nothing was run.
//
// Copies Run makes of standard input or a named pipe are removed before
// it returns.
func Run(ctx context.Context, paths []string, o Options) (Report, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	if err := o.Check(); err != nil {
		return Report{}, err
	}
	var rep Report
	var cleanup []func()
	defer func() {
		for _, remove := range cleanup {
			remove()
		}
	}()
	for _, path := range paths {
		inputs, err := expand(ctx, path, o, &cleanup)
		if err != nil {
			rep.Results = append(rep.Results, Result{Path: path, Check: "load", Status: StatusError, Error: err.Error()})
			continue
		}
		for _, in := range inputs {
			if ctx.Err() != nil {
				break
			}
			rep.Results = append(rep.Results, runInput(ctx, in, o)...)
		}
	}
	for _, r := range rep.Results {
		rep.Exit = max(rep.Exit, r.Status.Exit())
	}
	return rep, nil
}

// RunExec runs the exec check of o.Exec on the fixture directory dir, or
// with o.Update writes its golden (and the command beside it), as Run
// does for a fixture given Options.Exec; o is not checked. evcap promote
// --exec calls it for the fixture it has just written. The error is the
// fixture's failure to load; the check's own is in the Result.
func RunExec(ctx context.Context, dir string, o Options) (Result, error) {
	fx, err := fixtures.Load(os.DirFS(dir), ".")
	if err != nil {
		return Result{}, err
	}
	in := input{path: dir, fx: fx, goldDir: filepath.Join(dir, fixtures.GoldenDir)}
	return runExec(ctx, in, o, o.Exec, o.execName()), nil
}

// runInput runs every check o asks of in.
func runInput(ctx context.Context, in input, o Options) []Result {
	fail := func(check string, err error) []Result {
		return []Result{{Path: in.path, Check: check, Status: StatusError, Error: err.Error()}}
	}
	if o.Exec != "" {
		return []Result{runExec(ctx, in, o, o.Exec, o.execName())}
	}
	provider, restored := "", false
	if in.fx != nil {
		provider, restored = in.fx.Provider, in.fx.Restored
	} else {
		file, err := os.Open(in.file)
		if err != nil {
			return fail("load", err)
		}
		provider, restored, err = replay.CaptureProviderContext(ctx, o.wrap(ctx, file), in.fileName())
		file.Close()
		if err != nil {
			return fail("load", err)
		}
	}
	if _, err := NewNormalizer(provider, Reading{}); err != nil {
		return fail("load", fmt.Errorf("%s: %w", in.path, err))
	}
	checks, err := plan(in, o, provider, restored)
	if err != nil {
		return fail("plan", err)
	}
	var out []Result
	for _, c := range checks {
		if c.exec != "" {
			out = append(out, runExec(ctx, in, o, c.exec, c.name))
			continue
		}
		if ctx.Err() != nil {
			break
		}
		out = append(out, runMode(ctx, in, o, c))
	}
	if in.goldDir != "" && o.Mode == "" && ctx.Err() == nil && hasRestored(filepath.Dir(in.goldDir)) {
		out = append(out, runRestored(in.path, filepath.Dir(in.goldDir)))
	}
	return out
}
