package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/evcap/evcap/fixtures"
	"github.com/evcap/evcap/promote"
	"github.com/evcap/evcap/replay"
)

// replayInput is one thing to replay: a fixture (goldDir set) or a capture.
type replayInput struct {
	path    string
	fx      *fixtures.Fixture // nil for a capture streamed from file
	goldDir string
	file    string // capture file, for the streaming path and timestamps
	// name is what messages call the capture file: its path, or "stdin"
	// (or the named pipe) for a copy spooled from one.
	name string
}

// fileName is what messages call in's capture file.
func (in replayInput) fileName() string {
	if in.name != "" {
		return in.name
	}
	return in.file
}

// replayResult is the outcome of one check of one input.
type replayResult struct {
	Path       string             `json:"path"`
	Check      string             `json:"check"`
	Status     string             `json:"status"` // ok, mismatch, error, updated, unchanged
	Golden     string             `json:"golden,omitempty"`
	Error      string             `json:"error,omitempty"`
	Changes    string             `json:"changes,omitempty"`
	Mismatches []*replay.Mismatch `json:"mismatches,omitempty"`
}

func (r replayResult) code() int {
	switch r.Status {
	case "error":
		return 2
	case "mismatch":
		return 1
	}
	return 0
}

func runReplay(ctx context.Context, s streams, args []string, f replayFlags) error {
	if ctx == nil {
		ctx = context.Background()
	}
	if err := checkReplayFlags(f); err != nil {
		return &exitError{code: 2, err: err}
	}
	var results []replayResult
	var cleanup []func()
	defer func() {
		for _, remove := range cleanup {
			remove()
		}
	}()
	for _, arg := range args {
		inputs, err := expandReplayPath(ctx, s, arg, &cleanup)
		if err != nil {
			results = append(results, replayResult{Path: arg, Check: "load", Status: "error", Error: err.Error()})
			continue
		}
		for _, in := range inputs {
			if ctx.Err() != nil {
				break
			}
			results = append(results, replayOne(ctx, in, f)...)
		}
	}
	code := 0
	for _, r := range results {
		code = max(code, r.code())
	}
	if f.json {
		enc := json.NewEncoder(s.out)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		if err := enc.Encode(struct {
			Results []replayResult `json:"results"`
			Exit    int            `json:"exit"`
		}{results, code}); err != nil {
			return &exitError{code: 2, err: err}
		}
	} else {
		printReplay(s, results)
	}
	if code != 0 {
		return &exitError{code: code}
	}
	return nil
}

func checkReplayFlags(f replayFlags) error {
	switch replay.Mode(f.mode) {
	case "", replay.ModeNative, replay.ModeNormalized, replay.ModeLegacy:
	default:
		return fmt.Errorf("unknown mode %q (want native, normalized or legacy)", f.mode)
	}
	if f.exec != "" && f.mode != "" {
		return errors.New("--exec replays the native stdout through your command; drop --mode")
	}
	if f.exec == "" && (len(f.chunkings) > 0 || f.name != "" || f.timing != "max" || f.golden != "") {
		return errors.New("--chunking, --name, --timing and --golden go with --exec")
	}
	for _, c := range f.chunkings {
		if _, err := replay.ParseChunking(c); err != nil {
			return err
		}
	}
	if _, err := replay.ParseTiming(f.timing); err != nil {
		return err
	}
	if f.cumulative && (f.rechunk < 0 || (f.mode != "" && f.mode != string(replay.ModeNative))) {
		return errors.New("--cumulative needs --rechunk SEED and native mode")
	}
	if f.inject == "ignore-cumulative" && !f.cumulative {
		return errors.New("--inject ignore-cumulative needs --cumulative")
	}
	if f.cumulative && f.cumulativeDeltas {
		return errors.New("--cumulative makes its own cumulative input from a capture of deltas; drop --cumulative-deltas")
	}
	return inject(&replay.Options{}, f.inject)
}

// expandReplayPath turns a path into inputs: a fixture directory or its
// fixture.json, every fixture under a directory, a capture file, or a
// capture on stdin ("-").
//
// A copy it makes of standard input or a named pipe is removed by the
// functions it appends to cleanup.
func expandReplayPath(ctx context.Context, s streams, path string, cleanup *[]func()) ([]replayInput, error) {
	if path == "-" {
		// Standard input is read once into a temporary copy (removed by
		// the caller), which every check then streams like a file.
		tmp, remove, err := spoolOnce(ctx, s.in, path)
		if err != nil {
			return nil, err
		}
		*cleanup = append(*cleanup, remove)
		return []replayInput{{path: "-", file: tmp, name: "stdin"}}, nil
	}
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !st.IsDir() && !st.Mode().IsRegular() {
		// A named pipe can be read only once: it is copied once, as
		// standard input is, and every check reads the copy.
		if st.Mode()&os.ModeNamedPipe == 0 {
			return nil, fmt.Errorf("%s is a %v, not a capture file", path, st.Mode().Type())
		}
		tmp, remove, err := spoolOnce(ctx, s.in, path)
		if err != nil {
			return nil, err
		}
		*cleanup = append(*cleanup, remove)
		return []replayInput{{path: path, file: tmp, name: path}}, nil
	}
	if !st.IsDir() && filepath.Base(path) == fixtures.FileName {
		path, st = filepath.Dir(path), nil
	}
	if st == nil || st.IsDir() {
		if _, err := os.Stat(filepath.Join(path, fixtures.FileName)); err == nil {
			fx, err := fixtures.Load(os.DirFS(path), ".")
			if err != nil {
				return nil, err
			}
			return []replayInput{{path: path, fx: fx, goldDir: filepath.Join(path, fixtures.GoldenDir)}}, nil
		}
		var out []replayInput
		err := fixtures.Walk(os.DirFS(path), ".", func(dir string, fx *fixtures.Fixture) error {
			p := filepath.Join(path, filepath.FromSlash(dir))
			out = append(out, replayInput{path: p, fx: fx, goldDir: filepath.Join(p, fixtures.GoldenDir)})
			return nil
		})
		if err != nil {
			return nil, err
		}
		if len(out) == 0 {
			return nil, fmt.Errorf("%s: no fixtures under it (no %s)", path, fixtures.FileName)
		}
		return out, nil
	}
	return []replayInput{{path: path, file: path}}, nil
}

// replayCheck is one comparison to make.
type replayCheck struct {
	label string
	opts  replay.Options
	// exec checks
	exec, name string
}

// replayOne runs every check f asks of in.
func replayOne(ctx context.Context, in replayInput, f replayFlags) []replayResult {
	fail := func(check string, err error) []replayResult {
		return []replayResult{{Path: in.path, Check: check, Status: "error", Error: err.Error()}}
	}
	if f.exec != "" {
		return []replayResult{replayExec(ctx, in, f, f.exec, execName(f))}
	}
	provider, restored := "", false
	if in.fx != nil {
		provider, restored = in.fx.Provider, in.fx.Restored
	} else {
		file, err := os.Open(in.file)
		if err != nil {
			return fail("load", err)
		}
		provider, restored, err = replay.CaptureProviderContext(ctx, withContext(ctx, file), in.fileName())
		file.Close()
		if err != nil {
			return fail("load", err)
		}
	}
	if _, err := newNormalizer(provider); err != nil {
		return fail("load", fmt.Errorf("%s: %w", in.path, err))
	}
	checks, err := planReplay(in, f, provider, restored)
	if err != nil {
		return fail("plan", err)
	}
	var out []replayResult
	for _, c := range checks {
		if c.exec != "" {
			out = append(out, replayExec(ctx, in, f, c.exec, c.name))
			continue
		}
		if ctx.Err() != nil {
			break
		}
		out = append(out, replayMode(ctx, in, f, c))
	}
	if in.goldDir != "" && f.mode == "" && ctx.Err() == nil && hasRestored(filepath.Dir(in.goldDir)) {
		out = append(out, replayRestored(in.path, filepath.Dir(in.goldDir)))
	}
	return out
}

// replayRestored checks a fixture against the restored session it keeps
// (promote --restored): the same messages, tool calls with status and
// result, and final answer, as a chat UI groups them.
func replayRestored(path, fixtureDir string) replayResult {
	r := replayResult{Path: path, Check: "restored"}
	d, err := compareRestored(fixtureDir)
	switch {
	case err != nil:
		r.Status, r.Error = "error", err.Error()
	case d != nil:
		r.Status, r.Error = "mismatch", "the restored session differs from the live run: "+d.Error()
	default:
		r.Status = "ok"
	}
	return r
}

// planReplay lists the mode checks for in: the --mode given, or every
// golden a fixture has (native for a capture), then the recorded exec
// goldens.
func planReplay(in replayInput, f replayFlags, provider string, restored bool) ([]replayCheck, error) {
	base := normOptions{cumulativeDeltas: f.cumulativeDeltas, restored: restored}
	mkNorm := func() replay.Normalizer { n, _ := newNormalizerWith(provider, base); return n }
	formats := promote.Formats()
	if f.rechunk >= 0 {
		formats = promote.RechunkFormats()
	}
	has := func(name string) bool {
		if in.goldDir == "" {
			return false
		}
		_, err := os.Stat(filepath.Join(in.goldDir, name))
		return err == nil
	}
	mode := replay.Mode(f.mode)
	if f.format == "legacy" && f.formatSet {
		mode = replay.ModeLegacy
	}
	var modes []replay.Mode
	switch {
	case mode != "":
		modes = []replay.Mode{mode}
	case in.goldDir == "" || f.rechunk >= 0:
		modes = []replay.Mode{replay.ModeNative}
	default:
		if has(replay.NormalizedGolden) {
			modes = append(modes, replay.ModeNative)
		}
		modes = append(modes, replay.ModeNormalized)
		if has(replay.LegacyGolden) {
			modes = append(modes, replay.ModeLegacy)
		}
	}
	var checks []replayCheck
	for _, m := range modes {
		o := replay.Options{Mode: m, Normalizer: mkNorm, Legacy: promote.Legacy()}
		if f.cumulative {
			o.CumulativeNormalizer = func() replay.Normalizer {
				n, _ := newNormalizerWith(provider, normOptions{cumulativeDeltas: true})
				return n
			}
		}
		var names []string
		switch {
		case m == replay.ModeNormalized && !f.formatSet && in.goldDir != "" && f.rechunk < 0:
			for _, name := range slices.Sorted(mapsKeys(formats)) {
				if has(replay.FormatGolden(name)) {
					names = append(names, name)
				}
			}
			if len(names) == 0 && mode == replay.ModeNormalized {
				names = []string{f.format}
			}
		case m == replay.ModeNormalized || (m == replay.ModeNative && f.rechunk >= 0):
			names = []string{f.format}
		default:
			names = []string{""}
		}
		for _, name := range names {
			o := o
			if name != "" {
				mk, ok := formats[name]
				if !ok {
					return nil, fmt.Errorf("--format %q: want term, chat, groups or legacy", name)
				}
				o.Format, o.Renderer = name, mk
			}
			if err := inject(&o, f.inject); err != nil {
				return nil, err
			}
			if f.rechunk >= 0 {
				o.Rechunk = &replay.Rechunk{Seed: uint64(f.rechunk), Cumulative: f.cumulative}
			}
			checks = append(checks, replayCheck{label: modeLabel(o), opts: o})
		}
	}
	if mode == "" && in.goldDir != "" && !f.noExec && f.rechunk < 0 {
		ents, _ := os.ReadDir(in.goldDir)
		for _, e := range ents {
			name, ok := strings.CutPrefix(e.Name(), "exec-")
			if !ok || !strings.HasSuffix(name, ".command") {
				continue
			}
			name = strings.TrimSuffix(name, ".command")
			b, err := os.ReadFile(filepath.Join(in.goldDir, e.Name()))
			if err != nil {
				return nil, err
			}
			checks = append(checks, replayCheck{label: "exec " + name, exec: strings.TrimSpace(string(b)), name: name})
		}
	}
	return checks, nil
}

func mapsKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

func modeLabel(o replay.Options) string {
	what := string(o.Mode)
	if o.Format != "" {
		what += " → " + o.Format
	}
	if o.Rechunk != nil {
		what += fmt.Sprintf(", rechunk seed %d", o.Rechunk.Seed)
		if o.Rechunk.Cumulative {
			what += ", cumulative"
		}
	}
	return what
}

// replayMode runs one mode check (or its update).
func replayMode(ctx context.Context, in replayInput, f replayFlags, c replayCheck) replayResult {
	res := replayResult{Path: in.path, Check: c.label}
	o := c.opts
	if in.goldDir != "" {
		o.Goldens = os.DirFS(in.goldDir)
		cmdline := []string{"evcap replay", in.path, "--mode", string(o.Mode)}
		if o.Mode == replay.ModeNormalized {
			cmdline = append(cmdline, "--format", o.Format)
		}
		if f.cumulativeDeltas {
			cmdline = append(cmdline, "--cumulative-deltas")
		}
		o.Update = strings.Join(append(cmdline, "--update"), " ")
	}
	fail := func(err error) replayResult {
		res.Status, res.Error = "error", err.Error()
		return res
	}
	if f.update {
		if in.goldDir == "" {
			return fail(errors.New("--update needs a fixture directory (promote the capture first)"))
		}
		out, err := replay.OutputContext(ctx, in.fx, o)
		if err != nil {
			return fail(err)
		}
		res.Golden = filepath.Join(in.goldDir, replay.GoldenName(o))
		return writeReplayGolden(res, out)
	}
	var err error
	if in.fx == nil {
		file, ferr := os.Open(in.file)
		if ferr != nil {
			return fail(ferr)
		}
		defer file.Close()
		err = replay.RunCaptureContext(ctx, seekerWithContext(ctx, file), in.fileName(), o)
	} else {
		err = replay.RunContext(ctx, in.fx, o)
	}
	var m *replay.Mismatch
	switch {
	case err == nil:
		res.Status = "ok"
	case errors.As(err, &m):
		res.Status, res.Mismatches = "mismatch", []*replay.Mismatch{m}
	default:
		return fail(err)
	}
	return res
}

// writeReplayGolden writes out to res.Golden when it differs, recording
// what changed.
func writeReplayGolden(res replayResult, out []byte) replayResult {
	old, err := os.ReadFile(res.Golden)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		res.Status, res.Error = "error", err.Error()
		return res
	}
	if err == nil && bytes.Equal(old, out) {
		res.Status = "unchanged"
		return res
	}
	if err := os.MkdirAll(filepath.Dir(res.Golden), 0o755); err != nil {
		res.Status, res.Error = "error", err.Error()
		return res
	}
	if err := os.WriteFile(res.Golden, out, 0o644); err != nil {
		res.Status, res.Error = "error", err.Error()
		return res
	}
	res.Status = "updated"
	res.Changes = replay.LineDiff(string(old), string(out), replay.DiffOptions{MaxLines: 40})
	return res
}

// execName is --name, or the file name (without extension) of the first
// word of the command that looks like a path, else of its first word.
func execName(f replayFlags) string {
	if f.name != "" {
		return f.name
	}
	words := strings.Fields(f.exec)
	pick := words[0]
	for _, w := range words {
		if strings.ContainsAny(w, "/.") && !strings.HasPrefix(w, "-") {
			pick = w
			break
		}
	}
	base := filepath.Base(pick)
	if ext := filepath.Ext(base); ext != "" && ext != base {
		base = strings.TrimSuffix(base, ext)
	}
	return base
}

// replayExec runs (or updates) one exec check.
func replayExec(ctx context.Context, in replayInput, f replayFlags, command, name string) replayResult {
	res := replayResult{Path: in.path, Check: "exec " + name}
	fail := func(err error) replayResult {
		res.Status, res.Error = "error", err.Error()
		return res
	}
	fx := in.fx
	if fx == nil {
		file, err := os.Open(in.file)
		if err != nil {
			return fail(err)
		}
		fx, err = replay.LoadCaptureContext(ctx, withContext(ctx, file), in.fileName())
		file.Close()
		if err != nil {
			return fail(err)
		}
	}
	lines := replay.NativeStream(fx, false)
	if len(lines) == 0 {
		return fail(fmt.Errorf("%s has no native stdout lines to feed", in.path))
	}
	timing, _ := replay.ParseTiming(f.timing)
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
	for _, c := range f.chunkings {
		ch, _ := replay.ParseChunking(c)
		chunkings = append(chunkings, ch)
	}
	if len(chunkings) == 0 {
		chunkings = replay.DefaultChunkings()
	}
	switch {
	case f.golden != "":
		res.Golden = f.golden
	case in.goldDir == "":
		return fail(fmt.Errorf("--exec compares with golden/%s: it needs a fixture directory (promote the capture first) or --golden FILE", replay.ExecGolden(name)))
	default:
		res.Golden = filepath.Join(in.goldDir, replay.ExecGolden(name))
	}
	opts := replay.ExecOptions{Command: command, Timing: timing, Settle: f.settle}
	hint := fmt.Sprintf("evcap replay %s --exec %s --name %s --update", in.path, shellQuote(command), name)
	if f.golden != "" {
		hint = fmt.Sprintf("evcap replay %s --exec %s --golden %s --update", in.path, shellQuote(command), f.golden)
	}
	check := fmt.Sprintf("exec %s → golden/%s", name, replay.ExecGolden(name))
	if f.update {
		var first *replay.Driven
		for _, ch := range chunkings {
			o := opts
			o.Chunking = ch
			d, err := replay.Exec(ctx, lines, o)
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
			res.Status = "mismatch"
			res.Error = "not updated: the chunkings disagree or the command failed"
			return res
		}
		if in.goldDir == "" || f.golden != "" {
			return writeReplayGolden(res, first.Output)
		}
		if err := os.MkdirAll(in.goldDir, 0o755); err != nil {
			return fail(err)
		}
		cmdFile := filepath.Join(in.goldDir, "exec-"+name+".command")
		if old, err := os.ReadFile(cmdFile); err != nil || strings.TrimSpace(string(old)) != command {
			if err := os.WriteFile(cmdFile, []byte(command+"\n"), 0o644); err != nil {
				return fail(err)
			}
		}
		return writeReplayGolden(res, first.Output)
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
	res.Status = "ok"
	if len(bad) > 0 {
		res.Status, res.Mismatches = "mismatch", bad
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

// printReplay writes the text report.
func printReplay(s streams, results []replayResult) {
	for _, r := range results {
		switch r.Status {
		case "ok":
			fmt.Fprintf(s.out, "replay %s (%s): ok\n", r.Path, r.Check)
		case "mismatch":
			if r.Error != "" {
				fmt.Fprintf(s.out, "replay %s (%s): %s\n", r.Path, r.Check, r.Error)
			}
			for _, m := range r.Mismatches {
				fmt.Fprint(s.out, m.Error())
			}
		case "updated":
			fmt.Fprintf(s.out, "wrote %s:\n", r.Golden)
			io.WriteString(s.out, indent(r.Changes))
		case "unchanged":
			fmt.Fprintf(s.out, "unchanged %s (nothing written)\n", r.Golden)
		case "error":
			fmt.Fprintf(s.err, "evcap replay: %s (%s): %s\n", r.Path, r.Check, r.Error)
		}
	}
	if len(results) > 1 {
		n := map[string]int{}
		for _, r := range results {
			n[r.Status]++
		}
		var parts []string
		for _, st := range []string{"ok", "mismatch", "error", "updated", "unchanged"} {
			if n[st] > 0 {
				parts = append(parts, fmt.Sprintf("%d %s", n[st], st))
			}
		}
		fmt.Fprintf(s.out, "replay: %d checks: %s\n", len(results), strings.Join(parts, ", "))
	}
}

func indent(s string) string {
	if s == "" {
		return ""
	}
	return "  " + strings.ReplaceAll(strings.TrimSuffix(s, "\n"), "\n", "\n  ") + "\n"
}
