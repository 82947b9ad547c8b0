package replayrun

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/evcap/evcap/replay"
)

// runMode runs one mode check (or its update).
func runMode(ctx context.Context, in input, o Options, c check) Result {
	res := Result{Path: in.path, Check: c.label}
	ro := c.opts
	if in.goldDir != "" {
		ro.Goldens = os.DirFS(in.goldDir)
		cmdline := []string{"evcap replay", in.path, "--mode", string(ro.Mode)}
		if ro.Mode == replay.ModeNormalized {
			cmdline = append(cmdline, "--format", ro.Format)
		}
		if o.CumulativeDeltas {
			cmdline = append(cmdline, "--cumulative-deltas")
		}
		ro.Update = strings.Join(append(cmdline, "--update"), " ")
	}
	fail := func(err error) Result {
		res.Status, res.Error = StatusError, err.Error()
		return res
	}
	if o.Update {
		if in.goldDir == "" {
			return fail(errors.New("--update needs a fixture directory (promote the capture first)"))
		}
		out, err := replay.OutputContext(ctx, in.fx, ro)
		if err != nil {
			return fail(err)
		}
		res.Golden = filepath.Join(in.goldDir, replay.GoldenName(ro))
		return writeGolden(res, out)
	}
	var err error
	if in.fx == nil {
		file, ferr := os.Open(in.file)
		if ferr != nil {
			return fail(ferr)
		}
		defer file.Close()
		err = replay.RunCaptureContext(ctx, o.wrap(ctx, file), in.fileName(), ro)
	} else {
		err = replay.RunContext(ctx, in.fx, ro)
	}
	var m *replay.Mismatch
	switch {
	case err == nil:
		res.Status = StatusOK
	case errors.As(err, &m):
		res.Status, res.Mismatches = StatusMismatch, []*replay.Mismatch{m}
	default:
		return fail(err)
	}
	return res
}

// writeGolden writes out to res.Golden when it differs, recording what
// changed.
func writeGolden(res Result, out []byte) Result {
	old, err := os.ReadFile(res.Golden)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		res.Status, res.Error = StatusError, err.Error()
		return res
	}
	if err == nil && bytes.Equal(old, out) {
		res.Status = StatusUnchanged
		return res
	}
	if err := os.MkdirAll(filepath.Dir(res.Golden), 0o755); err != nil {
		res.Status, res.Error = StatusError, err.Error()
		return res
	}
	if err := os.WriteFile(res.Golden, out, 0o644); err != nil {
		res.Status, res.Error = StatusError, err.Error()
		return res
	}
	res.Status = StatusUpdated
	res.Changes = replay.LineDiff(string(old), string(out), replay.DiffOptions{MaxLines: 40})
	return res
}
