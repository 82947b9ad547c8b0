package replay

import (
	"errors"
	"flag"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/evcap/evcap/fixtures"
	"github.com/sebdah/goldie/v2"
)

// GoldenOptions say what Golden replays a fixture through. Leave a field
// empty to skip that mode.
type GoldenOptions struct {
	// Normalizer is replayed in native mode against golden/normalized.golden.
	Normalizer func() Normalizer
	// Renderers are replayed in normalized mode, each against
	// golden/<format>.golden.
	Renderers map[string]NewRenderer
	// Legacy is replayed in legacy mode against golden/legacy.golden.
	Legacy NewRenderer
	// Seeds, when given, also run every mode with Rechunk{Seed} for each.
	Seeds []uint64
	// RechunkRenderers, when set, replace Renderers for the rechunk runs
	// (for outputs that count chunks and so differ by design).
	RechunkRenderers map[string]NewRenderer
}

// Golden replays the fixture in dir (a directory holding fixture.json) in
// every mode opts allows and reports each mismatch with t.Error, naming the
// first diverging sequence and the command that accepts the change.
//
// It is the entry point for other Go projects: call it from a test with
// your own normalizer and renderers. Goldens live in dir/golden and follow
// goldie's flags: go test -update rewrites them, -update -clean first
// empties the golden directory. The flags are goldie's own (found with
// flag.Lookup), so importing both goldie and replay defines them once.
func Golden(t testing.TB, dir string, opts GoldenOptions) {
	t.Helper()
	fx, err := fixtures.Load(os.DirFS(dir), ".")
	if err != nil {
		t.Fatalf("replay.Golden: %v", err)
	}
	goldDir := filepath.Join(dir, fixtures.GoldenDir)
	update := updateHint(t)
	var runs []Options
	if opts.Normalizer != nil {
		runs = append(runs, Options{Mode: ModeNative, Normalizer: opts.Normalizer})
	}
	for _, format := range sortedKeys(opts.Renderers) {
		runs = append(runs, Options{Mode: ModeNormalized, Format: format, Renderer: opts.Renderers[format]})
	}
	if opts.Legacy != nil {
		runs = append(runs, Options{Mode: ModeLegacy, Legacy: opts.Legacy})
	}
	if flagSet("update") {
		g := goldie.New(t, goldie.WithFixtureDir(goldDir), goldie.WithNameSuffix(""))
		for _, o := range runs {
			out, err := Output(fx, o)
			if err != nil {
				t.Fatalf("replay.Golden %s: %s: %v", dir, GoldenName(o), err)
			}
			if err := g.Update(t, GoldenName(o), out); err != nil {
				t.Fatalf("replay.Golden %s: write %s: %v", dir, GoldenName(o), err)
			}
		}
	}
	for _, o := range runs {
		o.Goldens = os.DirFS(goldDir)
		o.Update = update
		if _, err := os.Stat(filepath.Join(goldDir, GoldenName(o))); err != nil {
			t.Errorf("replay.Golden %s: no golden %s; create it with: %s", dir, GoldenName(o), update)
			continue
		}
		check(t, dir, fx, o)
		for _, seed := range opts.Seeds {
			o := o
			o.Goldens = nil
			o.Rechunk = &Rechunk{Seed: seed}
			if mk, ok := opts.RechunkRenderers[o.Format]; ok && o.Mode == ModeNormalized {
				o.Renderer = mk
			}
			if o.Mode == ModeNative && len(opts.Renderers) > 0 {
				// Re-split native lines must also render the same.
				o.Format = sortedKeys(opts.Renderers)[0]
				o.Renderer = opts.Renderers[o.Format]
				if mk, ok := opts.RechunkRenderers[o.Format]; ok {
					o.Renderer = mk
				}
			}
			check(t, dir, fx, o)
		}
	}
}

func check(t testing.TB, dir string, fx *fixtures.Fixture, o Options) {
	t.Helper()
	err := Run(fx, o)
	var m *Mismatch
	switch {
	case err == nil:
	case errors.As(err, &m):
		t.Errorf("%s: %s", dir, m.Error())
	default:
		t.Errorf("%s: %s mode: %v", dir, o.Mode, err)
	}
}

// flagSet reports whether a boolean test flag (goldie's -update) is on.
func flagSet(name string) bool {
	f := flag.Lookup(name)
	return f != nil && f.Value.String() == "true"
}

// updateHint is the command that reruns exactly this test with -update.
func updateHint(t testing.TB) string {
	parts := strings.Split(t.Name(), "/")
	for i, p := range parts {
		parts[i] = "^" + regexp.QuoteMeta(p) + "$"
	}
	wd, err := os.Getwd()
	if err != nil {
		wd = "."
	}
	return fmt.Sprintf("(cd %s && go test -run '%s' -update)", wd, strings.Join(parts, "/"))
}

func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }
