package replay

import (
	"fmt"

	"github.com/evcap/evcap/fixtures"
)

// Output returns what a replay of fx in opts.Mode produces, the bytes its
// golden holds: normalized events (native mode, one JSON object per line),
// the renderer's output (normalized mode) or legacy marker lines (legacy
// mode). Promote writes goldens with it; -update rewrites them with it.
func Output(fx *fixtures.Fixture, opts Options) ([]byte, error) {
	switch opts.Mode {
	case ModeNative:
		if opts.Normalizer == nil {
			return nil, fmt.Errorf("%w: native mode needs a normalizer", ErrBadInput)
		}
		return NormalizedOutput(normalize(opts.Normalizer(), nativeLines(fx))), nil
	case ModeNormalized, ModeLegacy:
		mk := opts.Renderer
		if opts.Mode == ModeLegacy {
			mk = opts.Legacy
		}
		if mk == nil {
			return nil, fmt.Errorf("%w: %s mode needs a renderer", ErrBadInput, opts.Mode)
		}
		rec, err := recordedEvents(fx)
		if err != nil {
			return nil, err
		}
		evs, _ := split(rec)
		t, err := renderText(mk, evs, nil)
		if err != nil {
			return nil, err
		}
		return t.out, nil
	}
	return nil, fmt.Errorf("%w: unknown mode %q", ErrBadInput, opts.Mode)
}

// GoldenName is the golden file a replay in opts.Mode compares with.
func GoldenName(opts Options) string {
	switch opts.Mode {
	case ModeNative:
		return NormalizedGolden
	case ModeLegacy:
		return LegacyGolden
	}
	return FormatGolden(opts.Format)
}
