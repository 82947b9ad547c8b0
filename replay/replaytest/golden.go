package replaytest

import (
	"errors"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/evcap/evcap/fixtures"
	"github.com/evcap/evcap/replay"
)

// GoldenOptions say what Golden replays a fixture through. Leave a field
// empty to skip that mode.
type GoldenOptions struct {
	// Normalizer is replayed in native mode against golden/normalized.golden.
	Normalizer func() replay.Normalizer
	// Renderers are replayed in normalized mode, each against
	// golden/<format>.golden.
	Renderers map[string]replay.NewRenderer
	// Legacy is replayed in legacy mode against golden/legacy.golden.
	Legacy replay.NewRenderer
	// Seeds, when given, also run every mode with replay.Rechunk{Seed}
	// for each.
	Seeds []uint64
	// RechunkRenderers, when set, replace Renderers for the rechunk runs
	// (for outputs that count chunks and so differ by design).
	RechunkRenderers map[string]replay.NewRenderer
}

// Golden replays the fixture in dir (a directory holding fixture.json) in
// every mode opts allows, through normalizers and renderers built on
// evcap's event model, and reports each mismatch with t.Error, naming the
// first diverging sequence and the command that accepts the change. Its
// goldens are dir/golden/normalized.golden, <format>.golden and
// legacy.golden; under EVCAP_UPDATE=1 (or a set -update flag) it rewrites
// the ones of the modes it was given, and only those (clean removes
// nothing else either). For code with events of its own, use Stream or
// Events.
func Golden(t testing.TB, dir string, opts GoldenOptions) {
	t.Helper()
	fx, err := fixtures.Load(os.DirFS(dir), ".")
	if err != nil {
		t.Fatalf("replaytest.Golden: %v", err)
	}
	goldDir := filepath.Join(dir, fixtures.GoldenDir)
	update := UpdateHint(t)
	var runs []replay.Options
	if opts.Normalizer != nil {
		runs = append(runs, replay.Options{Mode: replay.ModeNative, Normalizer: opts.Normalizer})
	}
	for _, format := range slices.Sorted(maps.Keys(opts.Renderers)) {
		runs = append(runs, replay.Options{Mode: replay.ModeNormalized, Format: format, Renderer: opts.Renderers[format]})
	}
	if opts.Legacy != nil {
		runs = append(runs, replay.Options{Mode: replay.ModeLegacy, Legacy: opts.Legacy})
	}
	if Updating() {
		for _, o := range runs {
			out, err := replay.Output(fx, o)
			if err != nil {
				t.Fatalf("replaytest.Golden %s: %s: %v", dir, replay.GoldenName(o), err)
			}
			path := filepath.Join(goldDir, replay.GoldenName(o))
			if cleaning() {
				// The golden is this helper's own: remove it so that a
				// failed write below leaves no stale one.
				if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
					t.Fatalf("replaytest.Golden %s: %v", dir, err)
				}
			}
			changed, err := writeGolden(path, out)
			if err != nil {
				t.Fatalf("replaytest.Golden %s: write %s: %v", dir, replay.GoldenName(o), err)
			}
			if changed {
				t.Logf("replaytest.Golden: updated %s", path)
			}
		}
	}
	for _, o := range runs {
		o.Goldens = os.DirFS(goldDir)
		o.Update = update
		if _, err := os.Stat(filepath.Join(goldDir, replay.GoldenName(o))); err != nil {
			t.Errorf("replaytest.Golden %s: no golden %s; create it with: %s", dir, replay.GoldenName(o), update)
			continue
		}
		check(t, dir, fx, o)
		for _, seed := range opts.Seeds {
			o := o
			o.Goldens = nil
			o.Rechunk = &replay.Rechunk{Seed: seed}
			if mk, ok := opts.RechunkRenderers[o.Format]; ok && o.Mode == replay.ModeNormalized {
				o.Renderer = mk
			}
			if o.Mode == replay.ModeNative && len(opts.Renderers) > 0 {
				// Re-split native lines must also render the same.
				o.Format = slices.Sorted(maps.Keys(opts.Renderers))[0]
				o.Renderer = opts.Renderers[o.Format]
				if mk, ok := opts.RechunkRenderers[o.Format]; ok {
					o.Renderer = mk
				}
			}
			check(t, dir, fx, o)
		}
	}
}

func check(t testing.TB, dir string, fx *fixtures.Fixture, o replay.Options) {
	t.Helper()
	err := replay.Run(fx, o)
	var m *replay.Mismatch
	switch {
	case err == nil:
	case errors.As(err, &m):
		t.Errorf("%s: %s", dir, m.Error())
	default:
		t.Errorf("%s: %s mode: %v", dir, o.Mode, err)
	}
}
