package replayrun

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/evcap/evcap/promote"
	"github.com/evcap/evcap/replay"
)

// check is one comparison to make: a replay of one mode (opts), or an
// exec check (exec, the command, and name, its golden's NAME).
type check struct {
	label      string
	opts       replay.Options
	exec, name string
}

// plan lists the checks of in: the mode o.Mode gives, or every golden a
// fixture has (native for a capture), then the recorded exec goldens.
// provider and restored say how in's native lines are read.
func plan(in input, o Options, provider string, restored bool) ([]check, error) {
	base := Reading{CumulativeDeltas: o.CumulativeDeltas, Restored: restored}
	mkNorm := func() replay.Normalizer { n, _ := NewNormalizer(provider, base); return n }
	formats := promote.Formats()
	if o.Rechunk {
		formats = promote.RechunkFormats()
	}
	has := func(name string) bool {
		if in.goldDir == "" {
			return false
		}
		_, err := os.Stat(filepath.Join(in.goldDir, name))
		return err == nil
	}
	mode := o.Mode
	if o.Format == "legacy" {
		mode = replay.ModeLegacy
	}
	var modes []replay.Mode
	switch {
	case mode != "":
		modes = []replay.Mode{mode}
	case in.goldDir == "" || o.Rechunk:
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
	var checks []check
	for _, m := range modes {
		ro := replay.Options{Mode: m, Normalizer: mkNorm, Legacy: promote.Legacy()}
		if o.Cumulative {
			ro.CumulativeNormalizer = func() replay.Normalizer {
				n, _ := NewNormalizer(provider, Reading{CumulativeDeltas: true})
				return n
			}
		}
		var names []string
		switch {
		case m == replay.ModeNormalized && o.Format == "" && in.goldDir != "" && !o.Rechunk:
			for _, name := range slices.Sorted(maps.Keys(formats)) {
				if has(replay.FormatGolden(name)) {
					names = append(names, name)
				}
			}
			if len(names) == 0 && mode == replay.ModeNormalized {
				names = []string{o.format()}
			}
		case m == replay.ModeNormalized || (m == replay.ModeNative && o.Rechunk):
			names = []string{o.format()}
		default:
			names = []string{""}
		}
		for _, name := range names {
			ro := ro
			if name != "" {
				mk, ok := formats[name]
				if !ok {
					return nil, fmt.Errorf("--format %q: want term, chat, groups or legacy", name)
				}
				ro.Format, ro.Renderer = name, mk
			}
			if err := Inject(&ro, o.Inject); err != nil {
				return nil, err
			}
			if o.Rechunk {
				ro.Rechunk = &replay.Rechunk{Seed: o.RechunkSeed, Cumulative: o.Cumulative}
			}
			checks = append(checks, check{label: modeLabel(ro), opts: ro})
		}
	}
	if mode == "" && in.goldDir != "" && !o.NoExec && !o.Rechunk {
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
			checks = append(checks, check{label: "exec " + name, exec: strings.TrimSpace(string(b)), name: name})
		}
	}
	return checks, nil
}

// modeLabel is what a Result calls the check of o: its mode, format and
// rechunking.
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
