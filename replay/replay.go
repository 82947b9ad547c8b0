package replay

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"

	"github.com/evcap/evcap/envelope"
	"github.com/evcap/evcap/event"
	"github.com/evcap/evcap/fixtures"
)

// Mode says which stage of a recording is replayed.
type Mode string

// The replay modes (see the package doc).
const (
	ModeNative     Mode = "native"
	ModeNormalized Mode = "normalized"
	ModeLegacy     Mode = "legacy"
)

// Modes lists the modes in pipeline order, a fresh slice each call.
func Modes() []Mode { return []Mode{ModeNative, ModeNormalized, ModeLegacy} }

// Golden file names inside a fixture's golden directory.
const (
	NormalizedGolden = "normalized.golden"
	LegacyGolden     = "legacy.golden"
)

// FormatGolden is the golden file name of a renderer output format.
func FormatGolden(format string) string { return format + ".golden" }

// Options configure one replay.
type Options struct {
	Mode Mode
	// Normalizer makes a fresh normalizer (native mode).
	Normalizer func() Normalizer
	// Format names the Renderer's output ("term", "chat", "groups"); its
	// golden is FormatGolden(Format). Used in normalized mode, and in
	// native mode with Rechunk.
	Format   string
	Renderer NewRenderer
	// Legacy makes the renderer of legacy marker lines (legacy mode).
	Legacy NewRenderer
	// Goldens holds the expected outputs by file name (a fixture's golden
	// directory); nil, or a missing file, means: compare with the recorded
	// stage instead, where there is one.
	Goldens fs.FS
	// Rechunk, when set, replaces the comparison with expected output by
	// the check that re-split deltas change nothing: the normalized events
	// (deltas coalesced) in native mode, the Renderer's output in native
	// (when a Renderer is set) and normalized mode, the legacy markers
	// (delta markers merged) in legacy mode.
	Rechunk *Rechunk
	// CumulativeNormalizer makes a fresh normalizer that reads deltas as
	// cumulative snapshots (the provider's CumulativeDeltas option); native
	// mode with Rechunk.Cumulative replays the rewritten lines through it.
	CumulativeNormalizer func() Normalizer
	// Update is the command that rewrites the goldens, shown in reports.
	Update string
}

// Run is RunContext with a context that is never done.
func Run(fx *fixtures.Fixture, opts Options) error {
	return RunContext(context.Background(), fx, opts)
}

// RunContext replays fx as opts say. It returns a *Mismatch (as the error)
// when the output differs, an error wrapping ErrBadInput when the input
// cannot be replayed in this mode, nil when everything matched, and ctx's
// cause once ctx is done (checked before each native line or event).
func RunContext(ctx context.Context, fx *fixtures.Fixture, opts Options) error {
	if opts.Rechunk != nil && opts.Rechunk.Cumulative && opts.Mode != ModeNative {
		return fmt.Errorf("%w: cumulative rechunking rewrites native lines: it needs native mode, not %q", ErrBadInput, opts.Mode)
	}
	switch opts.Mode {
	case ModeNative:
		return runNative(ctx, fx, opts)
	case ModeNormalized:
		return runNormalized(ctx, fx, opts)
	case ModeLegacy:
		return runLegacy(ctx, fx, opts)
	}
	return fmt.Errorf("%w: unknown mode %q (want native, normalized or legacy)", ErrBadInput, opts.Mode)
}

// golden returns the named golden, or nil when there is none.
func golden(opts Options, name string) ([]byte, error) {
	if opts.Goldens == nil {
		return nil, nil
	}
	b, err := fs.ReadFile(opts.Goldens, name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%w: golden %s: %w", ErrBadInput, name, err)
	}
	return b, nil
}

func runNative(ctx context.Context, fx *fixtures.Fixture, opts Options) error {
	if opts.Normalizer == nil {
		return fmt.Errorf("%w: native mode needs a normalizer", ErrBadInput)
	}
	lines := nativeLines(fx)
	if len(lines) == 0 {
		return fmt.Errorf("%w: %s has no native_in records", ErrBadInput, fx.Name)
	}
	got, err := normalizeContext(ctx, opts.Normalizer(), lines)
	if err != nil {
		return err
	}
	if opts.Rechunk != nil {
		return rechunkNative(fx, opts, lines, got)
	}
	gotText := eventsText(got, nil)
	want, err := golden(opts, NormalizedGolden)
	if err != nil {
		return err
	}
	compared := false
	if want != nil {
		wantText, err := goldenEventsText(want)
		if err != nil {
			return err
		}
		if m := compareText(fx, "native → golden/"+NormalizedGolden, wantText, gotText, opts.Update); m != nil {
			return m
		}
		compared = true
	} else if rec, err := recordedEvents(fx); err != nil {
		return err
	} else if len(rec) > 0 {
		evs, seqs := split(rec)
		if m := compareText(fx, "native → recorded normalized_out", eventsText(evs, seqs), gotText, ""); m != nil {
			return m
		}
		compared = true
	}
	if !compared {
		return fmt.Errorf("%w: %s: nothing to compare with (no golden/%s and no normalized_out records); use --rechunk or promote it first", ErrBadInput, fx.Name, NormalizedGolden)
	}
	return nil
}

func runNormalized(ctx context.Context, fx *fixtures.Fixture, opts Options) error {
	if opts.Renderer == nil || opts.Format == "" {
		return fmt.Errorf("%w: normalized mode needs a renderer and its format name", ErrBadInput)
	}
	rec, err := recordedEvents(fx)
	if err != nil {
		return err
	}
	if len(rec) == 0 {
		return fmt.Errorf("%w: %s has no normalized_out records (replay it with --mode native)", ErrBadInput, fx.Name)
	}
	evs, seqs := split(rec)
	got, err := renderTextContext(ctx, opts.Renderer, evs, seqs)
	if err != nil {
		return err
	}
	if opts.Rechunk != nil {
		return rechunkRender(fx, opts, opts.Format, opts.Renderer, evs, seqs, got, false)
	}
	want, err := golden(opts, FormatGolden(opts.Format))
	if err != nil {
		return err
	}
	if want == nil {
		return fmt.Errorf("%w: %s: no golden/%s to compare the %s output with; promote the capture or use --rechunk", ErrBadInput, fx.Name, FormatGolden(opts.Format), opts.Format)
	}
	return asError(compareText(fx, "normalized → "+opts.Format+" → golden/"+FormatGolden(opts.Format), &text{out: want}, got, opts.Update))
}

func runLegacy(ctx context.Context, fx *fixtures.Fixture, opts Options) error {
	if opts.Legacy == nil {
		return fmt.Errorf("%w: legacy mode needs a legacy renderer", ErrBadInput)
	}
	rec, err := recordedEvents(fx)
	if err != nil {
		return err
	}
	if len(rec) == 0 {
		return fmt.Errorf("%w: %s has no normalized_out records to derive legacy markers from", ErrBadInput, fx.Name)
	}
	evs, seqs := split(rec)
	got, err := renderTextContext(ctx, opts.Legacy, evs, seqs)
	if err != nil {
		return err
	}
	if opts.Rechunk != nil {
		return rechunkRender(fx, opts, "legacy", opts.Legacy, evs, seqs, got, true)
	}
	want, err := golden(opts, LegacyGolden)
	if err != nil {
		return err
	}
	switch {
	case want != nil:
		if m := compareText(fx, "legacy → golden/"+LegacyGolden, &text{out: want}, got, opts.Update); m != nil {
			return m
		}
	case len(fx.Stage(envelope.StageLegacyOut)) > 0:
		if m := compareText(fx, "legacy → recorded legacy_out", legacyText(fx), got, ""); m != nil {
			return m
		}
	default:
		return fmt.Errorf("%w: %s: no golden/%s and no legacy_out records to compare with", ErrBadInput, fx.Name, LegacyGolden)
	}
	return nil
}

func split(rec []recordedEvent) ([]event.Event, []int64) {
	evs := make([]event.Event, len(rec))
	seqs := make([]int64, len(rec))
	for i, r := range rec {
		evs[i], seqs[i] = r.ev, r.seq
	}
	return evs, seqs
}

// EncodeEvent is the one-line JSON form of an event in normalized goldens:
// HTML characters unescaped, cause included.
func EncodeEvent(e event.Event) []byte {
	b, err := event.AppendPayload(nil, &e)
	if err != nil {
		// event.Event holds only strings, numbers and raw JSON that was
		// valid when decoded; keep the failure visible in the output.
		return []byte(fmt.Sprintf("{\"encodeError\":%q}\n", err.Error()))
	}
	return append(b, '\n')
}

// NormalizedOutput is the content of golden/normalized.golden for events.
func NormalizedOutput(evs []event.Event) []byte {
	return eventsText(evs, nil).out
}

// eventsText writes one event per line; seqs (optional) are the records
// they came from.
func eventsText(evs []event.Event, seqs []int64) *text {
	t := &text{}
	for i, e := range evs {
		who := &origin{stage: envelope.StageNormalizedOut, eventType: string(e.Kind) + "/" + string(e.Phase), cause: e.Cause}
		if seqs != nil {
			who.seq = seqs[i]
		}
		t.add(EncodeEvent(e), who)
	}
	return t
}

// goldenEventsText re-encodes a normalized golden line by line, so that
// the comparison does not depend on how the golden's JSON was spelled, and
// attributes each line to the event it holds.
func goldenEventsText(golden []byte) (*text, error) {
	var evs []event.Event
	for i, l := range splitLines(golden) {
		var e event.Event
		if err := json.Unmarshal([]byte(l), &e); err != nil {
			return nil, fmt.Errorf("%w: golden/%s line %d: %w", ErrBadInput, NormalizedGolden, i+1, err)
		}
		evs = append(evs, e)
	}
	return eventsText(evs, nil), nil
}

// legacyText is the recorded legacy_out stage as marker lines.
func legacyText(fx *fixtures.Fixture) *text {
	t := &text{}
	for _, r := range fx.Stage(envelope.StageLegacyOut) {
		line := envelope.DecodeNativeLine(envelope.EventStderr, r.Payload)
		t.add(append(append([]byte(nil), line...), '\n'),
			&origin{seq: r.Sequence, stage: envelope.StageLegacyOut, eventType: r.EventType, cause: r.Cause})
	}
	return t
}

// renderText renders events, attributing what each Render call wrote to
// the event (and its record, when seqs is given).
func renderText(mk NewRenderer, evs []event.Event, seqs []int64) (*text, error) {
	return renderTextContext(context.Background(), mk, evs, seqs)
}

// renderTextContext is renderText stopping with ctx's cause once ctx is
// done, checked before each event.
func renderTextContext(ctx context.Context, mk NewRenderer, evs []event.Event, seqs []int64) (*text, error) {
	t := &text{}
	var buf bytes.Buffer
	r := mk(&buf)
	for i, e := range evs {
		if err := context.Cause(ctx); err != nil {
			return nil, err
		}
		err := r.Render(e)
		who := &origin{stage: envelope.StageNormalizedOut, eventType: string(e.Kind) + "/" + string(e.Phase), cause: e.Cause}
		if seqs != nil {
			who.seq = seqs[i]
		}
		t.add(buf.Bytes(), who)
		buf.Reset()
		if err != nil {
			return nil, fmt.Errorf("render event %d (%s): %w", i, who.eventType, err)
		}
	}
	err := r.Close()
	t.add(buf.Bytes(), nil)
	if err != nil {
		return nil, fmt.Errorf("render: close: %w", err)
	}
	return t, nil
}
