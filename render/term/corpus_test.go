package term

import (
	"strings"
	"testing"

	"github.com/evcap/evcap/internal/corpustest"
	"github.com/sebdah/goldie/v2"
)

// goldenName is "<provider>/<capture>" for a corpus file.
func goldenName(file string) string {
	return corpustest.Provider(file) + "/" + corpustest.Base(file)
}

// TestCorpusGoldens renders every corpus capture three ways: plain, colour
// wrapped at 80 columns, and plain in GitHub Actions mode. Goldens show
// control characters as text (visible), so they read line by line.
func TestCorpusGoldens(t *testing.T) {
	g := goldie.New(t, goldie.WithFixtureDir("testdata/corpus"), goldie.WithNameSuffix(".golden"))
	variants := []struct {
		suffix string
		opts   Options
	}{
		{".term", Options{}},
		{".term-color-w80", Options{Color: true, Width: 80}},
		{".term-gha", Options{GitHubActions: true}},
	}
	for _, file := range corpustest.NativeFiles(t) {
		name := goldenName(file)
		t.Run(name, func(t *testing.T) {
			evs := corpustest.Normalize(t, file)
			for _, v := range variants {
				out := render(t, v.opts, evs...)
				if v.opts.Color {
					if bad := nonSGRControl(out); bad != "" {
						t.Errorf("%s%s: %s", name, v.suffix, bad)
					}
				} else if bad := nonSGRControl(out); bad != "" || strings.Contains(out, "\x1b") {
					t.Errorf("%s%s: control in plain output: %s", name, v.suffix, bad)
				}
				g.Assert(t, name+v.suffix, []byte(visible(out)))
			}
		})
	}
}
