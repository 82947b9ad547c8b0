package replayrun

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/evcap/evcap/fixtures"
	"github.com/evcap/evcap/replay"
)

// TestPlan: the checks an input gets, from the goldens a fixture keeps
// (a copy of the checked-in claude/tools with some of them) and the
// options. An exec command recorded with the fixture (golden/
// exec-NAME.command) is planned after the mode checks, with its command.
func TestPlan(t *testing.T) {
	all := []string{"normalized", "chat", "groups", "term", "legacy"}
	ntl := []string{"normalized", "term", "legacy"}
	for _, c := range []struct {
		reason  string
		goldens []string // nil: a capture file, no golden directory
		exec    bool     // golden/exec-render.command holds "cat"
		o       Options
		want    []string
	}{
		{"every golden: native, each renderer in name order, legacy", all, false, Options{},
			[]string{"native", "normalized → chat", "normalized → groups", "normalized → term", "legacy"}},
		{"normalized, term and legacy goldens and an exec command, which comes last", ntl, true, Options{},
			[]string{"native", "normalized → term", "legacy", "exec render"}},
		{"no normalized.golden: no native check", []string{"term", "legacy"}, false, Options{},
			[]string{"normalized → term", "legacy"}},
		{"no renderer golden and no mode: no normalized check", []string{"normalized", "legacy"}, false, Options{},
			[]string{"native", "legacy"}},
		{"NoExec leaves the recorded command out", ntl, true, Options{NoExec: true},
			[]string{"native", "normalized → term", "legacy"}},
		{"a mode: that mode only, and no exec check", ntl, true, Options{Mode: replay.ModeLegacy},
			[]string{"legacy"}},
		{"a format: that renderer only, with or without its golden", ntl, true, Options{Format: "chat"},
			[]string{"native", "normalized → chat", "legacy", "exec render"}},
		{"format legacy is legacy mode", ntl, true, Options{Format: "legacy"},
			[]string{"legacy"}},
		{"normalized mode without any renderer golden: term", []string{"normalized"}, false, Options{Mode: replay.ModeNormalized},
			[]string{"normalized → term"}},
		{"rechunking: native through term, no exec check", ntl, true, Options{Rechunk: true, RechunkSeed: 7},
			[]string{"native → term, rechunk seed 7"}},
		{"rechunking into cumulative snapshots", ntl, false, Options{Rechunk: true, RechunkSeed: 7, Cumulative: true},
			[]string{"native → term, rechunk seed 7, cumulative"}},
		{"rechunking through another renderer", ntl, false, Options{Rechunk: true, RechunkSeed: 3, Format: "groups"},
			[]string{"native → groups, rechunk seed 3"}},
		{"a capture: native", nil, false, Options{},
			[]string{"native"}},
		{"a capture in normalized mode: term", nil, false, Options{Mode: replay.ModeNormalized},
			[]string{"normalized → term"}},
	} {
		t.Run(c.reason, func(t *testing.T) {
			in := planInput(t, c.goldens, c.exec)
			checks, err := plan(in, c.o, "claude", false)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, ch := range checks {
				got = append(got, ch.label)
				switch {
				case strings.HasPrefix(ch.label, "exec "):
					if ch.exec != "cat" || ch.name != "render" {
						t.Errorf("%s: command %q, name %q, want cat and render", ch.label, ch.exec, ch.name)
					}
				case ch.opts.Normalizer == nil || (ch.opts.Format != "") != (ch.opts.Renderer != nil):
					t.Errorf("%s: no normalizer, or a format without its renderer", ch.label)
				}
			}
			if !slices.Equal(got, c.want) {
				t.Errorf("planned %q, want %q", got, c.want)
			}
		})
	}
	if _, err := plan(planInput(t, all, false), Options{Format: "sideways"}, "claude", false); err == nil ||
		!strings.Contains(err.Error(), `--format "sideways"`) {
		t.Errorf("an unknown format: %v, want an error naming it", err)
	}
}

// planInput is a copy of the fixture claude/tools with the goldens named
// (and, with exec, the command of exec golden "render"), or its capture
// when goldens is nil.
func planInput(t *testing.T, goldens []string, exec bool) input {
	t.Helper()
	src := filepath.Join("..", "fixtures", "testdata", "claude", "tools")
	if goldens == nil {
		return input{path: "capture.jsonl", file: "capture.jsonl"}
	}
	dir := t.TempDir()
	gold := filepath.Join(dir, fixtures.GoldenDir)
	if err := os.MkdirAll(gold, 0o755); err != nil {
		t.Fatal(err)
	}
	copyFile(t, filepath.Join(src, fixtures.FileName), filepath.Join(dir, fixtures.FileName))
	for _, g := range goldens {
		copyFile(t, filepath.Join(src, fixtures.GoldenDir, g+".golden"), filepath.Join(gold, g+".golden"))
	}
	if exec {
		if err := os.WriteFile(filepath.Join(gold, "exec-render.command"), []byte("cat\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	fx, err := fixtures.Load(os.DirFS(dir), ".")
	if err != nil {
		t.Fatal(err)
	}
	return input{path: dir, fx: fx, goldDir: gold}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o644); err != nil {
		t.Fatal(err)
	}
}
