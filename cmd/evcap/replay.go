package main

import (
	"context"
	"encoding/json"
	"time"

	"github.com/evcap/evcap/replay"
	"github.com/evcap/evcap/replayrun"
	"github.com/spf13/cobra"
)

// replayFlags are the flags of evcap replay, as cobra fills them in;
// options turns them into the library's replayrun.Options.
type replayFlags struct {
	mode   string
	format string
	// formatSet says --format was given (else every format golden is
	// checked, or term where a renderer is needed).
	formatSet bool
	rechunk   int64
	// cumulative makes the rechunked native delta lines cumulative
	// snapshots (--cumulative).
	cumulative bool
	// cumulativeDeltas reads the capture's native lines as cumulative
	// snapshots (--cumulative-deltas).
	cumulativeDeltas bool
	update           bool
	inject           string
	// exec is the command replayed with --exec, name its golden's name.
	exec      string
	name      string
	golden    string
	chunkings []string
	timing    string
	settle    time.Duration
	noExec    bool
	json      bool
}

func newReplayCmd(s streams) *cobra.Command {
	var f replayFlags
	cmd := &cobra.Command{
		Use:   "replay PATH... (capture file, fixture directory, tree of fixtures, or - for stdin)",
		Short: "Replay captures and fixtures through normalizers, renderers or your own program and compare the output",
		Long: `replay runs recorded agent runs again, in sequence order, and compares:

  --mode native      native_in lines → the provider's normalizer → events, against
                     golden/normalized.golden (fixtures) or the recorded normalized_out
  --mode normalized  normalized_out events → the --format renderer (term, chat,
                     groups) → text, against golden/<format>.golden
  --mode legacy      normalized_out events → legacy markers, against
                     golden/legacy.golden or the recorded legacy_out
  --exec 'CMD ARGS'  the native stdout lines, exactly as the CLI printed them, on
                     CMD's stdin (run with sh -c) → its stdout, against
                     golden/exec-NAME.golden, once per --chunking

Without --mode or --exec, a fixture is checked against every golden it has:
normalized, each renderer's, legacy, and each exec golden whose command was
recorded with it (golden/exec-NAME.command, written by --update; --no-exec
skips those). A capture file is replayed in native mode. Paths may be many;
a directory that is not a fixture is walked for the fixtures under it, so
"evcap replay fixtures/testdata" checks a whole tree. "-" reads a capture
from stdin.

--exec: --chunking whole|line|byte|random:SEED (repeatable; default whole, line,
byte, random:1, random:2, random:3) says how the stream is split into writes;
--timing max|original|xN paces them (original needs a capture file: fixtures
keep no timestamps; give a capture its golden with --golden FILE). The output must be identical under every chunking. A
mismatch names the chunking, the first diverging output line and, from a
second run that feeds a line and waits for the output to settle, the native
lines fed just before it. --name NAME (default: the program's file name)
names the golden. --update writes the golden only when every chunking gave
the same output and the command exited 0.

--format legacy is the same as --mode legacy. --rechunk SEED instead checks that
re-splitting every delta at random points (seeded) changes neither the
normalized text nor the rendered output. With --cumulative (native mode) the
re-split delta lines are also rewritten to carry the whole text so far, as
some Claude-compatible providers send them, and normalized with the
provider's cumulative-deltas reading: the events and the rendered output must
still be the original's. --inject adds a known fault (drop-delta: the
normalizer loses a text delta; duplicate-text: the renderer writes a delta
twice; last-delta-only: the renderer keeps only the last delta of a run;
ignore-cumulative: --cumulative input is read as pieces, duplicating text) to
show what a failing replay reports.

--cumulative-deltas is for a capture of a Claude-compatible gateway or
third-party model that resends the whole text in every delta: its native
lines are then normalized with that reading.

--update rewrites the goldens checked (fixture directories only), prints what
changed in each and writes nothing where nothing changed. --json prints one
JSON document with a result per check instead of text.

Exit status: 0 everything matched, 1 a mismatch, 2 bad input (the worst wins).`,
		Example: `  evcap replay fixtures/testdata
  evcap replay fixtures/testdata/claude/tools-partial --json
  evcap replay capture.jsonl --mode native
  evcap replay fixtures/testdata/claude/tools-partial --mode normalized --format chat
  evcap replay fixtures/testdata/claude/tools --exec 'node bridge.js' --name bridge --update
  evcap replay fixtures/testdata/claude/tools --exec 'node bridge.js' --name bridge --chunking random:7
  evcap replay capture.jsonl --mode normalized --format term --rechunk 7
  evcap replay capture.jsonl --rechunk 7 --cumulative
  evcap replay fixtures/testdata/claude/tools-partial --mode normalized --format term --update`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			f.formatSet = cmd.Flags().Changed("format")
			return runReplay(cmd.Context(), s, args, f)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.mode, "mode", "", "what to replay: native, normalized or legacy (default: every golden a fixture has; native for a capture)")
	fl.StringVar(&f.format, "format", "term", "renderer for normalized mode: term, chat, groups or legacy (default for fixtures: every format with a golden)")
	fl.Int64Var(&f.rechunk, "rechunk", -1, "check that re-splitting deltas with this seed changes nothing")
	fl.BoolVar(&f.cumulative, "cumulative", false, "with --rechunk in native mode: also turn the delta lines into cumulative snapshots and replay them with the cumulative-deltas reading")
	fl.BoolVar(&f.cumulativeDeltas, "cumulative-deltas", false, cumulativeDeltasHelp)
	fl.BoolVar(&f.update, "update", false, "rewrite the goldens checked (fixture directories only); unchanged ones are not written")
	fl.StringVar(&f.inject, "inject", "", "inject a known fault: drop-delta, duplicate-text, last-delta-only or ignore-cumulative")
	fl.StringVar(&f.exec, "exec", "", "replay the native stdout through this command (run with sh -c) and compare its stdout with golden/exec-NAME.golden")
	fl.StringVar(&f.name, "name", "", "with --exec: the golden's name, golden/exec-NAME.golden (default: the program's file name)")
	fl.StringVar(&f.golden, "golden", "", "with --exec: the golden file to compare with or --update (for a capture file, which has no golden directory)")
	fl.StringArrayVar(&f.chunkings, "chunking", nil, "with --exec: how to split the stream: whole, line, byte or random:SEED (repeatable)")
	fl.StringVar(&f.timing, "timing", "max", "with --exec: max, original or xN (original pacing sped up N times; captures only)")
	fl.DurationVar(&f.settle, "settle", 0, "with --exec: how long output must be quiet before the next line is fed when explaining a mismatch (default 40ms)")
	fl.BoolVar(&f.noExec, "no-exec", false, "do not run the commands recorded with a fixture's exec goldens")
	fl.BoolVar(&f.json, "json", false, "print the results as one JSON document")
	_ = cmd.RegisterFlagCompletionFunc("mode", cobra.FixedCompletions([]string{"native", "normalized", "legacy"}, cobra.ShellCompDirectiveNoFileComp))
	_ = cmd.RegisterFlagCompletionFunc("format", cobra.FixedCompletions([]string{"term", "chat", "groups", "legacy"}, cobra.ShellCompDirectiveNoFileComp))
	_ = cmd.RegisterFlagCompletionFunc("chunking", cobra.FixedCompletions([]string{"whole", "line", "byte", "random:1"}, cobra.ShellCompDirectiveNoFileComp))
	_ = cmd.RegisterFlagCompletionFunc("timing", cobra.FixedCompletions([]string{"max", "original", "x2", "x10"}, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

// runReplay is evcap replay: the flags as replayrun.Options, one
// replayrun.Run over the paths, its report printed as text or JSON, and
// the exit status of the worst check.
func runReplay(ctx context.Context, s streams, args []string, f replayFlags) error {
	rep, err := replayrun.Run(ctx, args, f.options(s))
	if err != nil {
		return &exitError{code: 2, err: err}
	}
	if f.json {
		enc := json.NewEncoder(s.out)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rep); err != nil {
			return &exitError{code: 2, err: err}
		}
	} else {
		printReplay(s, rep.Results)
	}
	if rep.Exit != 0 {
		return &exitError{code: rep.Exit}
	}
	return nil
}

// options are f as the library's options: standard input read once into
// a temporary file main knows of, and every capture read with the run's
// context and memory budget.
func (f replayFlags) options(s streams) replayrun.Options {
	o := replayrun.Options{
		Mode: replay.Mode(f.mode), Cumulative: f.cumulative, CumulativeDeltas: f.cumulativeDeltas,
		Update: f.update, Inject: f.inject, NoExec: f.noExec,
		Exec: f.exec, Name: f.name, Golden: f.golden, Chunkings: f.chunkings, Timing: f.timing, Settle: f.settle,
		Stdin: s.in, Temp: tempFiles(), WrapReader: seekerWithContext,
	}
	if f.formatSet {
		o.Format = f.format
	}
	if f.rechunk >= 0 {
		o.Rechunk, o.RechunkSeed = true, uint64(f.rechunk)
	}
	return o
}
