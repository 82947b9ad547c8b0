package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/evcap/evcap/fixtures"
)

// promoteExec writes the exec golden of a freshly promoted fixture: the
// user's command run over its native stdout exactly as evcap replay --exec
// --update runs it (every default chunking must agree and the command must
// exit 0), so that replay of the fixture checks that golden from then on.
func promoteExec(ctx context.Context, s streams, dir, command, name string) error {
	fx, err := fixtures.Load(os.DirFS(dir), ".")
	if err != nil {
		return err
	}
	f := replayFlags{exec: command, name: name, update: true}
	if name == "" {
		name = execName(f)
	}
	res := replayExec(ctx, replayInput{path: dir, fx: fx, goldDir: filepath.Join(dir, fixtures.GoldenDir)}, f, command, name)
	switch res.Status {
	case "updated", "unchanged":
		fmt.Fprintf(s.out, "exec golden %s written (%s)\n", res.Golden, command)
		return nil
	case "mismatch":
		if len(res.Mismatches) > 0 {
			fmt.Fprintln(s.err, res.Mismatches[0].Error())
		}
	}
	return &exitError{code: 1, err: fmt.Errorf("%s: exec golden %s not written: %s", dir, name, res.Error)}
}
