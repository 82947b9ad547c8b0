package replayrun

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/evcap/evcap/replay"
)

// runExec runs (or with o.Update writes) one exec check: command over
// in's native stdout, compared with golden/exec-NAME.golden (or
// o.Golden) under every chunking of o.
func runExec(ctx context.Context, in input, o Options, command, name string) Result {
	res := Result{Path: in.path, Check: "exec " + name}
	fail := func(err error) Result {
		res.Status, res.Error = StatusError, err.Error()
		return res
	}
	fx := in.fx
	if fx == nil {
		file, err := os.Open(in.file)
		if err != nil {
			return fail(err)
		}
		fx, err = replay.LoadCaptureContext(ctx, o.wrap(ctx, file), in.fileName())
		file.Close()
		if err != nil {
			return fail(err)
		}
	}
	lines := replay.NativeStream(fx, false)
	if len(lines) == 0 {
		return fail(fmt.Errorf("%s has no native stdout lines to feed", in.path))
	}
	timing, _ := replay.ParseTiming(o.Timing)
	if timing.Original {
		if in.file == "" {
			return fail(errors.New("--timing original needs a capture file: fixtures keep no timestamps"))
		}
		file, err := os.Open(in.file)
		if err != nil {
			return fail(err)
		}
		at, err := replay.CaptureTimesContext(ctx, file, in.fileName())
		file.Close()
		if err != nil {
			return fail(err)
		}
		for i := range lines {
			lines[i].At = at[lines[i].Sequence]
		}
	}
	var chunkings []replay.Chunking
	for _, c := range o.Chunkings {
		ch, _ := replay.ParseChunking(c)
		chunkings = append(chunkings, ch)
	}
	if len(chunkings) == 0 {
		chunkings = replay.DefaultChunkings()
	}
	switch {
	case o.Golden != "":
		res.Golden = o.Golden
	case in.goldDir == "":
		return fail(fmt.Errorf("--exec compares with golden/%s: it needs a fixture directory (promote the capture first) or --golden FILE", replay.ExecGolden(name)))
	default:
		res.Golden = filepath.Join(in.goldDir, replay.ExecGolden(name))
	}
	opts := replay.ExecOptions{Command: command, Timing: timing, Settle: o.Settle}
	hint := fmt.Sprintf("evcap replay %s --exec %s --name %s --update", in.path, shellQuote(command), name)
	if o.Golden != "" {
		hint = fmt.Sprintf("evcap replay %s --exec %s --golden %s --update", in.path, shellQuote(command), o.Golden)
	}
	check := fmt.Sprintf("exec %s → golden/%s", name, replay.ExecGolden(name))
	if o.Update {
		var first *replay.Driven
		for _, ch := range chunkings {
			eo := opts
			eo.Chunking = ch
			d, err := replay.Exec(ctx, lines, eo)
			if err != nil {
				return fail(err)
			}
			if first == nil {
				first = d
			}
			if m := replay.CompareDriven(fmt.Sprintf("exec %s: chunking %s vs %s", name, ch, first.Chunking), first.Output, d, lines, ""); m != nil {
				res.Mismatches = append(res.Mismatches, m)
			}
		}
		if len(res.Mismatches) > 0 {
			res.Status = StatusMismatch
			res.Error = "not updated: the chunkings disagree or the command failed"
			return res
		}
		if in.goldDir == "" || o.Golden != "" {
			return writeGolden(res, first.Output)
		}
		if err := os.MkdirAll(in.goldDir, 0o755); err != nil {
			return fail(err)
		}
		// The command is kept beside its golden, so that a plain replay
		// of the fixture runs it again (plan).
		cmdFile := filepath.Join(in.goldDir, "exec-"+name+".command")
		if old, err := os.ReadFile(cmdFile); err != nil || strings.TrimSpace(string(old)) != command {
			if err := os.WriteFile(cmdFile, []byte(command+"\n"), 0o644); err != nil {
				return fail(err)
			}
		}
		return writeGolden(res, first.Output)
	}
	want, err := os.ReadFile(res.Golden)
	if errors.Is(err, fs.ErrNotExist) {
		return fail(fmt.Errorf("%s: no golden/%s; write it with: %s", in.path, replay.ExecGolden(name), hint))
	}
	if err != nil {
		return fail(err)
	}
	_, bad, err := replay.CheckExec(ctx, lines, want, replay.ExecCheck{Exec: opts, Chunkings: chunkings, Check: check, Update: hint})
	if err != nil {
		return fail(err)
	}
	res.Status = StatusOK
	if len(bad) > 0 {
		res.Status, res.Mismatches = StatusMismatch, bad
	}
	return res
}

// shellQuote quotes s for sh when it holds anything but plain words.
func shellQuote(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\n'\"\\$`!*?[]{}()<>|&;#~") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
