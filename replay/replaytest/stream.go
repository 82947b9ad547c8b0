package replaytest

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/evcap/evcap/fixtures"
	"github.com/evcap/evcap/replay"
)

// StreamOptions shape a Stream check.
type StreamOptions struct {
	// Chunkings are the ways of splitting the stream to try, in order;
	// replay.DefaultChunkings() (whole, line, byte, three random seeds)
	// when empty.
	Chunkings []replay.Chunking
	// Stderr also feeds the lines the CLI wrote to stderr, in their place
	// in the recording.
	Stderr bool
	// Golden is the golden file's path; by default the fixture's
	// golden/go-<test name>.golden.
	Golden string
	// Update rewrites the golden instead of comparing (Stream sets it from
	// Updating); Clean first removes the other goldens the check owns
	// (those starting with the golden's name without ".golden").
	Update, Clean bool
	// UpdateHint is the command shown in reports (Stream sets UpdateHint).
	UpdateHint string
}

// Report is the outcome of a check.
type Report struct {
	// Golden is the golden compared with or written.
	Golden string
	// Updated says the golden was written (its content changed or it was
	// new); on an update that changed nothing it is false.
	Updated bool
	// Diff is what the update changed (replay.LineDiff form).
	Diff string
	// Mismatches holds one report per chunking whose output differed
	// from the golden (or, on update, from the first chunking's).
	Mismatches []*replay.Mismatch
}

// ErrNoGolden reports a check with no golden to compare with.
var ErrNoGolden = errors.New("no golden")

// CheckStream is Stream without a testing.TB: it runs p over the native
// stdout of the fixture in dir once per chunking and compares each output
// with the golden (opts.Golden must be set), or writes the golden when
// opts.Update is set and every chunking gave the same output without an
// error. A returned error is about the input (fixture, golden, files);
// differences are in the Report.
func CheckStream(ctx context.Context, dir string, p replay.Pipeline, opts StreamOptions) (*Report, error) {
	fx, err := fixtures.Load(os.DirFS(dir), ".")
	if err != nil {
		return nil, err
	}
	lines := replay.NativeStream(fx, opts.Stderr)
	if len(lines) == 0 {
		return nil, fmt.Errorf("%s: %w: no native lines to feed", dir, replay.ErrBadInput)
	}
	chunkings := opts.Chunkings
	if len(chunkings) == 0 {
		chunkings = replay.DefaultChunkings()
	}
	runs := make([]*replay.Driven, 0, len(chunkings))
	for _, c := range chunkings {
		runs = append(runs, replay.Drive(ctx, lines, c, p))
		if err := ctx.Err(); err != nil {
			return nil, err
		}
	}
	return settle(dir, lines, runs, opts)
}

// settle compares runs with the golden or, on update, with each other and
// then writes the golden.
func settle(dir string, lines []replay.NativeLine, runs []*replay.Driven, opts StreamOptions) (*Report, error) {
	rep := &Report{Golden: opts.Golden}
	name := filepath.Base(opts.Golden)
	if opts.Update {
		first := runs[0]
		for _, d := range runs {
			check := fmt.Sprintf("%s: chunking %s vs %s", dir, d.Chunking, first.Chunking)
			if d == first {
				check = fmt.Sprintf("%s: chunking %s", dir, d.Chunking)
			}
			if m := replay.CompareDriven(check, first.Output, d, lines, ""); m != nil {
				rep.Mismatches = append(rep.Mismatches, m)
			}
		}
		if len(rep.Mismatches) > 0 {
			return rep, nil // write nothing the chunkings disagree on
		}
		old, err := os.ReadFile(opts.Golden)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		if opts.Clean {
			base := name[:len(name)-len(filepath.Ext(name))]
			if err := removeOwned(filepath.Dir(opts.Golden), base, name); err != nil {
				return nil, err
			}
		}
		rep.Diff = replay.LineDiff(string(old), string(first.Output), replay.DiffOptions{MaxLines: 40})
		rep.Updated, err = writeGolden(opts.Golden, first.Output)
		return rep, err
	}
	want, err := os.ReadFile(opts.Golden)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s: %w %s; create it with: %s", dir, ErrNoGolden, opts.Golden, opts.UpdateHint)
	}
	if err != nil {
		return nil, err
	}
	for _, d := range runs {
		check := fmt.Sprintf("%s: chunking %s → %s", dir, d.Chunking, name)
		if m := replay.CompareDriven(check, want, d, lines, opts.UpdateHint); m != nil {
			rep.Mismatches = append(rep.Mismatches, m)
		}
	}
	return rep, nil
}

// Stream re-drives p, your stream pipeline, from the fixture in dir (a
// directory holding fixture.json, as evcap promote writes it): the bytes
// the CLI printed on stdout, exactly, non-JSON lines included, fed once per
// chunking (whole, line by line, a byte at a time, seeded random splits).
// Every output must equal the golden, by default the fixture's
// golden/go-<test name>.golden. A difference is reported with t.Error: the
// chunking, the first diverging output line, the native lines (sequence
// and text) being fed when it was written, and the command that rewrites
// the golden. Under EVCAP_UPDATE=1 (or a set -update flag) the golden is
// written instead, provided every chunking gave the same output; what
// changed is logged, and nothing is written when nothing changed.
func Stream(t testing.TB, dir string, p replay.Pipeline, opts StreamOptions) {
	t.Helper()
	fill(t, dir, &opts)
	rep, err := CheckStream(t.Context(), dir, p, opts)
	finish(t, rep, err, opts.Update)
}

// fill sets the golden path and the update fields from the test.
func fill(t testing.TB, dir string, opts *StreamOptions) {
	if opts.Golden == "" {
		opts.Golden = filepath.Join(dir, fixtures.GoldenDir, "go-"+testFileName(t.Name())+".golden")
	}
	if !opts.Update {
		opts.Update = Updating()
	}
	if !opts.Clean {
		opts.Clean = cleaning()
	}
	if opts.UpdateHint == "" {
		opts.UpdateHint = UpdateHint(t)
	}
}

func finish(t testing.TB, rep *Report, err error, update bool) {
	t.Helper()
	if err != nil {
		t.Fatalf("replaytest: %v", err)
	}
	for _, m := range rep.Mismatches {
		if update {
			t.Errorf("replaytest: not updating %s, the chunkings disagree:\n%s", rep.Golden, m.Error())
			continue
		}
		t.Error(m.Error())
	}
	switch {
	case update && rep.Updated:
		t.Logf("replaytest: updated %s:\n%s", rep.Golden, rep.Diff)
	case update && len(rep.Mismatches) == 0:
		t.Logf("replaytest: %s unchanged", rep.Golden)
	}
}
