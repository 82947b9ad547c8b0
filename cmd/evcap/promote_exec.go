package main

import (
	"context"
	"fmt"

	"github.com/evcap/evcap/replayrun"
)

// promoteExec writes the exec golden of a freshly promoted fixture: the
// user's command run over its native stdout exactly as evcap replay --exec
// --update runs it (every default chunking must agree and the command must
// exit 0), so that replay of the fixture checks that golden from then on.
func promoteExec(ctx context.Context, s streams, dir, command, name string) error {
	if name == "" {
		name = replayrun.ExecName(command)
	}
	res, err := replayrun.RunExec(ctx, dir, replayrun.Options{Exec: command, Name: name, Update: true})
	if err != nil {
		return err
	}
	switch res.Status {
	case replayrun.StatusUpdated, replayrun.StatusUnchanged:
		fmt.Fprintf(s.out, "exec golden %s written (%s)\n", res.Golden, command)
		return nil
	case replayrun.StatusMismatch:
		if len(res.Mismatches) > 0 {
			fmt.Fprintln(s.err, res.Mismatches[0].Error())
		}
	}
	return &exitError{code: 1, err: fmt.Errorf("%s: exec golden %s not written: %s", dir, name, res.Error)}
}
