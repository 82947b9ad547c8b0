package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/evcap/evcap/event"
	"github.com/evcap/evcap/fixtures"
	"github.com/evcap/evcap/promote"
	"github.com/evcap/evcap/replay"
	"github.com/spf13/cobra"
)

type replayFlags struct {
	mode    string
	format  string
	rechunk int64
	// cumulative makes the rechunked native delta lines cumulative
	// snapshots (--cumulative).
	cumulative bool
	// cumulativeDeltas reads the capture's native lines as cumulative
	// snapshots (--cumulative-deltas).
	cumulativeDeltas bool
	update           bool
	inject           string
}

func newReplayCmd(s streams) *cobra.Command {
	var f replayFlags
	cmd := &cobra.Command{
		Use:   "replay FILE|FIXTURE_DIR",
		Short: "Replay a capture or fixture through a normalizer or renderer and compare the output",
		Long: `replay runs a recorded agent run again, in sequence order, and compares:

  --mode native      native_in lines → the provider's normalizer → events, against
                     golden/normalized.golden (fixtures) or the recorded normalized_out
  --mode normalized  normalized_out events → the --format renderer (term, chat,
                     groups) → text, against golden/<format>.golden
  --mode legacy      normalized_out events → legacy markers, against
                     golden/legacy.golden or the recorded legacy_out

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

Exit status: 0 match, 1 mismatch, 2 bad input.`,
		Example: `  evcap replay fixtures/testdata/claude/tools-partial
  evcap replay capture.jsonl --mode native
  evcap replay fixtures/testdata/claude/tools-partial --mode normalized --format chat
  evcap replay capture.jsonl --mode normalized --format term --rechunk 7
  evcap replay capture.jsonl --rechunk 7 --cumulative
  evcap replay fixtures/testdata/claude/tools-partial --mode normalized --format term --update`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runReplay(s, args[0], f)
		},
	}
	cmd.Flags().StringVar(&f.mode, "mode", "native", "what to replay: native, normalized or legacy")
	cmd.Flags().StringVar(&f.format, "format", "term", "renderer for normalized mode: term, chat, groups or legacy")
	cmd.Flags().Int64Var(&f.rechunk, "rechunk", -1, "check that re-splitting deltas with this seed changes nothing")
	cmd.Flags().BoolVar(&f.cumulative, "cumulative", false, "with --rechunk in native mode: also turn the delta lines into cumulative snapshots and replay them with the cumulative-deltas reading")
	cmd.Flags().BoolVar(&f.cumulativeDeltas, "cumulative-deltas", false, cumulativeDeltasHelp)
	cmd.Flags().BoolVar(&f.update, "update", false, "rewrite the golden of this mode and format (fixture directories only)")
	cmd.Flags().StringVar(&f.inject, "inject", "", "inject a known fault: drop-delta, duplicate-text, last-delta-only or ignore-cumulative")
	return cmd
}

// loadReplayInput reads a fixture directory or a capture file; for a
// fixture it also returns its golden directory.
func loadReplayInput(path string) (*fixtures.Fixture, string, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, "", err
	}
	if st.IsDir() {
		fx, err := fixtures.Load(os.DirFS(path), ".")
		return fx, filepath.Join(path, fixtures.GoldenDir), err
	}
	fx, err := replay.LoadCaptureFile(path)
	return fx, "", err
}

// openStreamable opens path for replay.RunCapture when it is a capture
// file replayed in plain native mode (no --rechunk, --cumulative or
// --update, which need the whole capture or a fixture directory) and
// returns its provider; ok is false when the in-memory path should run
// (and report any error reading the start of the file).
func openStreamable(path string, f replayFlags) (*os.File, string, bool) {
	if f.mode != string(replay.ModeNative) || f.format == "legacy" || f.rechunk >= 0 || f.cumulative || f.update {
		return nil, "", false
	}
	st, err := os.Stat(path)
	if err != nil || st.IsDir() {
		return nil, "", false
	}
	file, err := os.Open(path)
	if err != nil {
		return nil, "", false
	}
	provider, err := replay.CaptureProvider(file, path)
	if err == nil {
		_, err = file.Seek(0, io.SeekStart)
	}
	if err != nil {
		file.Close()
		return nil, "", false
	}
	return file, provider, true
}

func runReplay(s streams, path string, f replayFlags) error {
	bad := func(err error) error { return &exitError{code: 2, err: err} }
	// A capture file in plain native mode is streamed (replay.RunCapture);
	// everything else is loaded whole.
	var (
		fx       *fixtures.Fixture
		provider string
		goldDir  string
	)
	capture, provider, ok := openStreamable(path, f)
	if ok {
		defer capture.Close()
	} else {
		var err error
		fx, goldDir, err = loadReplayInput(path)
		if err != nil {
			return bad(err)
		}
		provider = fx.Provider
	}
	opts := replay.Options{Mode: replay.Mode(f.mode)}
	if f.format == "legacy" {
		opts.Mode = replay.ModeLegacy
	}
	if _, err := newNormalizer(provider); err != nil {
		return bad(fmt.Errorf("%s: %w", path, err))
	}
	if f.cumulative && (f.rechunk < 0 || opts.Mode != replay.ModeNative) {
		return bad(errors.New("--cumulative needs --rechunk SEED and native mode"))
	}
	if f.inject == "ignore-cumulative" && !f.cumulative {
		return bad(errors.New("--inject ignore-cumulative needs --cumulative"))
	}
	if f.cumulative && f.cumulativeDeltas {
		return bad(errors.New("--cumulative makes its own cumulative input from a capture of deltas; drop --cumulative-deltas"))
	}
	base := normOptions{cumulativeDeltas: f.cumulativeDeltas}
	opts.Normalizer = func() replay.Normalizer { n, _ := newNormalizerWith(provider, base); return n }
	if f.cumulative {
		opts.CumulativeNormalizer = func() replay.Normalizer {
			n, _ := newNormalizerWith(provider, normOptions{cumulativeDeltas: true})
			return n
		}
	}
	opts.Legacy = promote.Legacy()
	if opts.Mode == replay.ModeNormalized || (opts.Mode == replay.ModeNative && f.rechunk >= 0) {
		formats := promote.Formats()
		if f.rechunk >= 0 {
			formats = promote.RechunkFormats()
		}
		mk, ok := formats[f.format]
		if !ok {
			return bad(fmt.Errorf("--format %q: want term, chat, groups or legacy", f.format))
		}
		opts.Format, opts.Renderer = f.format, mk
	}
	if err := inject(&opts, f.inject); err != nil {
		return bad(err)
	}
	if f.rechunk >= 0 {
		opts.Rechunk = &replay.Rechunk{Seed: uint64(f.rechunk), Cumulative: f.cumulative}
	}
	if goldDir != "" {
		opts.Goldens = os.DirFS(goldDir)
		cmdline := []string{"evcap replay", path, "--mode", string(opts.Mode)}
		if opts.Mode == replay.ModeNormalized {
			cmdline = append(cmdline, "--format", f.format)
		}
		if f.cumulativeDeltas {
			cmdline = append(cmdline, "--cumulative-deltas")
		}
		opts.Update = strings.Join(append(cmdline, "--update"), " ")
	}
	if f.update {
		if goldDir == "" {
			return bad(errors.New("--update needs a fixture directory (promote the capture first)"))
		}
		out, err := replay.Output(fx, opts)
		if err != nil {
			return bad(err)
		}
		name := filepath.Join(goldDir, replay.GoldenName(opts))
		if err := os.WriteFile(name, out, 0o644); err != nil {
			return bad(err)
		}
		fmt.Fprintf(s.out, "wrote %s\n", name)
		return nil
	}
	var err error
	if capture != nil {
		err = replay.RunCapture(capture, path, opts)
	} else {
		err = replay.Run(fx, opts)
	}
	var m *replay.Mismatch
	switch {
	case err == nil:
		what := string(opts.Mode)
		if opts.Format != "" {
			what += " → " + opts.Format
		}
		if opts.Rechunk != nil {
			what += fmt.Sprintf(", rechunk seed %d", opts.Rechunk.Seed)
			if opts.Rechunk.Cumulative {
				what += ", cumulative"
			}
		}
		fmt.Fprintf(s.out, "replay %s (%s): ok\n", path, what)
		return nil
	case errors.As(err, &m):
		fmt.Fprint(s.out, m.Error())
		return &exitError{code: 1}
	default:
		return bad(err)
	}
}

// inject wraps the normalizer or renderer of opts with a known fault.
func inject(opts *replay.Options, fault string) error {
	switch fault {
	case "":
	case "drop-delta":
		mk := opts.Normalizer
		opts.Normalizer = func() replay.Normalizer { return &dropDelta{n: mk(), drop: 3} }
	case "ignore-cumulative":
		// The bug class --cumulative exists for: snapshots read as pieces.
		opts.CumulativeNormalizer = opts.Normalizer
	case "duplicate-text", "last-delta-only":
		wrap := func(mk replay.NewRenderer) replay.NewRenderer {
			if mk == nil {
				return nil
			}
			return func(w io.Writer) replay.Renderer {
				if fault == "duplicate-text" {
					return &duplicateText{r: mk(w), dup: 3}
				}
				return &lastDeltaOnly{r: mk(w)}
			}
		}
		opts.Renderer, opts.Legacy = wrap(opts.Renderer), wrap(opts.Legacy)
	default:
		return fmt.Errorf("--inject %q: want drop-delta, duplicate-text or last-delta-only, or ignore-cumulative with --cumulative", fault)
	}
	return nil
}

// dropDelta loses the drop-th text delta, as a normalizer with a boundary
// bug would.
type dropDelta struct {
	n          replay.Normalizer
	seen, drop int
}

func (d *dropDelta) Line(ref int64, line []byte) []event.Event {
	var out []event.Event
	for _, e := range d.n.Line(ref, line) {
		if e.Kind == event.KindText && e.Phase == event.PhaseDelta {
			d.seen++
			if d.seen == d.drop {
				continue
			}
		}
		out = append(out, e)
	}
	return out
}

func (d *dropDelta) End() []event.Event { return d.n.End() }

// duplicateText renders the dup-th text delta twice.
type duplicateText struct {
	r         replay.Renderer
	seen, dup int
}

func (d *duplicateText) Render(e event.Event) error {
	if e.Kind == event.KindText && e.Phase == event.PhaseDelta {
		d.seen++
		if d.seen == d.dup {
			if err := d.r.Render(e); err != nil {
				return err
			}
		}
	}
	return d.r.Render(e)
}

func (d *duplicateText) Close() error { return d.r.Close() }

// lastDeltaOnly keeps only the last of a run of deltas of one block, as a
// renderer that replaces instead of appending would.
type lastDeltaOnly struct {
	r       replay.Renderer
	pending *event.Event
}

func (l *lastDeltaOnly) Render(e event.Event) error {
	if e.Phase == event.PhaseDelta && (e.Kind == event.KindText || e.Kind == event.KindThinking) {
		if l.pending != nil && (l.pending.Kind != e.Kind || l.pending.MessageID != e.MessageID || l.pending.PartID != e.PartID) {
			if err := l.r.Render(*l.pending); err != nil {
				return err
			}
		}
		l.pending = &e
		return nil
	}
	if l.pending != nil {
		p := *l.pending
		l.pending = nil
		if err := l.r.Render(p); err != nil {
			return err
		}
	}
	return l.r.Render(e)
}

func (l *lastDeltaOnly) Close() error {
	if l.pending != nil {
		if err := l.r.Render(*l.pending); err != nil {
			return err
		}
	}
	return l.r.Close()
}
