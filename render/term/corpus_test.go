package term

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evcap/evcap/event"
	"github.com/evcap/evcap/internal/lines"
	"github.com/evcap/evcap/normalize/claude"
	"github.com/evcap/evcap/normalize/codex"
	"github.com/evcap/evcap/normalize/gemini"
	"github.com/evcap/evcap/normalize/opencode"
	"github.com/sebdah/goldie/v2"
)

const corpusDir = "../../testdata/corpus"

// normalizers maps a corpus provider directory to its normalizer.
var normalizers = map[string]func() event.Normalizer{
	"claude":   func() event.Normalizer { return claude.New() },
	"codex":    func() event.Normalizer { return codex.New() },
	"gemini":   func() event.Normalizer { return gemini.New() },
	"opencode": func() event.Normalizer { return opencode.New() },
}

// corpusCaptures lists the native output files of every corpus capture:
// *.stdout.jsonl for all providers, plus opencode's raw SSE (*.sse.txt).
func corpusCaptures(t *testing.T) []string {
	t.Helper()
	var files []string
	for _, pat := range []string{"*/*.stdout.jsonl", "opencode/*.sse.txt"} {
		m, err := filepath.Glob(filepath.Join(corpusDir, pat))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	if len(files) < 20 {
		t.Fatalf("found %d corpus captures under %s, want at least 20", len(files), corpusDir)
	}
	return files
}

// normalizeCapture streams a capture file through its provider's normalizer.
func normalizeCapture(t *testing.T, file string) []event.Event {
	t.Helper()
	provider := filepath.Base(filepath.Dir(file))
	mk, ok := normalizers[provider]
	if !ok {
		t.Fatalf("%s: no normalizer for provider %q", file, provider)
	}
	n := mk()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var evs []event.Event
	r := lines.NewReader(f)
	for {
		line, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil && !errors.Is(err, lines.ErrTorn) {
			t.Fatalf("%s: %v", file, err)
		}
		evs = append(evs, n.Line(r.Line(), line)...)
	}
	return append(evs, n.End()...)
}

// goldenName is "<provider>/<capture>" for a corpus file.
func goldenName(file string) string {
	base := filepath.Base(file)
	base = strings.TrimSuffix(strings.TrimSuffix(base, ".stdout.jsonl"), ".txt")
	return filepath.Base(filepath.Dir(file)) + "/" + base
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
	for _, file := range corpusCaptures(t) {
		name := goldenName(file)
		t.Run(name, func(t *testing.T) {
			evs := normalizeCapture(t, file)
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
