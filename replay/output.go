package replay

import (
	"context"
	"fmt"

	"github.com/evcap/evcap/fixtures"
)

// Output is OutputContext with a context that is never done.
func Output(fx *fixtures.Fixture, opts Options) ([]byte, error) {
	return OutputContext(context.Background(), fx, opts)
}

// OutputContext returns what a replay of fx in opts.Mode produces, the bytes its
// golden holds: normalized events (native mode, one JSON object per line),
// the renderer's output (normalized mode) or legacy marker lines (legacy
// mode). Promote writes goldens with it; -update rewrites them with it.
// It returns ctx's cause once ctx is done (checked before each native line
// or event).
func OutputContext(ctx context.Context, fx *fixtures.Fixture, opts Options) ([]byte, error) {
	switch opts.Mode {
	case ModeNative:
		if opts.Normalizer == nil {
			return nil, fmt.Errorf("%w: native mode needs a normalizer", ErrBadInput)
		}
		evs, err := normalizeContext(ctx, opts.Normalizer(), nativeLines(fx))
		if err != nil {
			return nil, err
		}
		return NormalizedOutput(evs), nil
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
		t, err := renderTextContext(ctx, mk, evs, nil)
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
