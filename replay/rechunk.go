package replay

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/evcap/evcap/envelope"
	"github.com/evcap/evcap/event"
	"github.com/evcap/evcap/fixtures"
	"github.com/evcap/evcap/provider"
	"github.com/evcap/evcap/providers"
	"github.com/evcap/evcap/render/legacy"
)

// Rechunk re-splits deltas at random points drawn from Seed. The same seed
// always gives the same split, so a failure is reproduced by its seed.
type Rechunk struct {
	Seed uint64
	// Cumulative, after re-splitting, rewrites the native text and
	// thinking delta lines into cumulative snapshots (CumulativeLines), as
	// some Claude-compatible providers send them, and replays them through
	// Options.CumulativeNormalizer (a normalizer with its CumulativeDeltas
	// option on). Native mode only.
	Cumulative bool
}

func (rc Rechunk) rng() *rand.Rand { return rand.New(rand.NewPCG(rc.Seed, 0x65766361)) }

// pieces cuts s at 1 to 3 random rune boundaries (s itself when it has
// fewer than two runes).
func pieces(s string, rng *rand.Rand) []string {
	n := utf8.RuneCountInString(s)
	if n < 2 {
		return []string{s}
	}
	cuts := map[int]bool{}
	for want := 1 + rng.IntN(min(n-1, 3)); len(cuts) < want; {
		cuts[1+rng.IntN(n-1)] = true
	}
	var out []string
	start, i := 0, 0
	for pos := range s {
		if cuts[i] {
			out = append(out, s[start:pos])
			start = pos
		}
		i++
	}
	return append(out, s[start:])
}

// Events returns evs with every text and thinking delta split into several
// deltas of the same block (same ids, same cause).
func (rc Rechunk) Events(evs []event.Event) []event.Event {
	rng := rc.rng()
	var out []event.Event
	for _, e := range evs {
		if e.Phase != event.PhaseDelta || (e.Kind != event.KindText && e.Kind != event.KindThinking) {
			out = append(out, e)
			continue
		}
		for _, p := range pieces(e.Text, rng) {
			c := e
			c.Text = p
			out = append(out, c)
		}
	}
	return out
}

// line splits one native delta line (ds are the pieces its provider's
// Deltas tracker found in it) into several lines that carry the pieces of
// its text, everything else unchanged. A line carries at most one piece to
// split: one that is not a block's Start text, in a line that is JSON
// itself (a framed SSE line is left whole). Other lines, and lines of
// formats without per-line deltas such as codex, come back as they are.
func (rc Rechunk) line(line []byte, ds []provider.Delta, rng *rand.Rand) [][]byte {
	var d *provider.Delta
	for i := range ds {
		if ds[i].Start || ds[i].Offset != 0 {
			continue
		}
		if d != nil {
			return [][]byte{line} // two pieces: no one split fits both
		}
		d = &ds[i]
	}
	if d == nil {
		return [][]byte{line}
	}
	_, _, text, ok := d.Locate(line)
	if !ok {
		return [][]byte{line}
	}
	var out [][]byte
	for _, p := range pieces(text, rng) {
		out = append(out, d.Replace(line, p))
	}
	return out
}

// detected is the provider that printed lines, judged from the lines
// themselves, for the callers that do not say.
func detected(lines [][]byte) (provider.Descriptor, bool) {
	d, _, ok := providers.DetectStream(lines)
	return d, ok
}

// NativeLines re-splits the delta lines of a native stream; the pieces of
// a line keep its reference. With Cumulative, the pieces are then made
// cumulative snapshots (CumulativeLines). The provider is the one whose
// format the lines are in (providers.DetectStream); lines of no known
// provider come back as they are. It is exported for other replayers;
// replay itself uses NativeLinesOf with the fixture's provider.
func (rc Rechunk) NativeLines(refs []int64, lines [][]byte) ([]int64, [][]byte) {
	d, ok := detected(lines)
	if !ok {
		return refs, lines
	}
	return rc.NativeLinesOf(d, refs, lines)
}

// NativeLinesOf is NativeLines for lines printed by the provider d: its
// Deltas tracker says where the pieces are.
func (rc Rechunk) NativeLinesOf(d provider.Descriptor, refs []int64, lines [][]byte) ([]int64, [][]byte) {
	rng := rc.rng()
	tr := d.Deltas()
	var outRefs []int64
	var outLines [][]byte
	for i, l := range lines {
		for _, p := range rc.line(l, tr.Line(l), rng) {
			outRefs = append(outRefs, refs[i])
			outLines = append(outLines, p)
		}
	}
	if rc.Cumulative {
		outLines = CumulativeLinesOf(d, outLines)
	}
	return outRefs, outLines
}

// Coalesce merges runs of deltas of one block (same kind, ids) into one
// delta, and sorts and deduplicates every Cause, so that two chunkings of
// the same stream compare equal exactly when they say the same thing.
func Coalesce(evs []event.Event) []event.Event {
	var out []event.Event
	// A run's text and causes are collected first and set once the run
	// ends: appending to the event's own Text would copy the text so far
	// for every delta, which is quadratic in long (or duplicated) blocks.
	var text strings.Builder
	var cause []int64
	run := false
	end := func() {
		if run {
			out[len(out)-1].Text = text.String()
			out[len(out)-1].Cause = uniq(cause)
			run = false
		}
	}
	for _, e := range evs {
		if n := len(out); n > 0 && e.Phase == event.PhaseDelta && sameBlock(out[n-1], e) {
			if !run {
				run = true
				text.Reset()
				text.WriteString(out[n-1].Text)
				cause = append(cause[:0], out[n-1].Cause...)
			}
			text.WriteString(e.Text)
			cause = append(cause, e.Cause...)
			continue
		}
		end()
		e.Cause = uniq(e.Cause)
		out = append(out, e)
	}
	end()
	return out
}

func sameBlock(a, b event.Event) bool {
	return a.Phase == event.PhaseDelta && a.Kind == b.Kind && a.MessageID == b.MessageID && a.PartID == b.PartID &&
		a.SessionID == b.SessionID && a.TurnID == b.TurnID && a.ToolCallID == b.ToolCallID
}

func uniq(c []int64) []int64 {
	if len(c) == 0 {
		return nil
	}
	c = slices.Clone(c)
	slices.Sort(c)
	return slices.Compact(c)
}

func rechunkNative(fx *fixtures.Fixture, opts Options, lines []nativeLine, base []event.Event) error {
	rc := *opts.Rechunk
	refs := make([]int64, len(lines))
	raw := make([][]byte, len(lines))
	for i, l := range lines {
		refs[i], raw[i] = l.seq, l.line
	}
	if d, ok := providers.Lookup(fx.Provider); ok {
		refs, raw = rc.NativeLinesOf(d, refs, raw)
	} else {
		refs, raw = rc.NativeLines(refs, raw)
	}
	mk, what := opts.Normalizer, "re-split"
	if rc.Cumulative {
		if opts.CumulativeNormalizer == nil {
			return fmt.Errorf("%w: cumulative rechunking needs a CumulativeNormalizer", ErrBadInput)
		}
		mk, what = opts.CumulativeNormalizer, "re-split and made cumulative snapshots"
	}
	n := mk()
	var variant []event.Event
	for i := range raw {
		variant = append(variant, n.Line(refs[i], raw[i])...)
	}
	variant = append(variant, n.End()...)
	check := fmt.Sprintf("rechunk seed %d: normalized events, native delta lines %s (deltas coalesced)", rc.Seed, what)
	if m := compareText(fx, check, eventsText(Coalesce(base), nil), eventsText(Coalesce(variant), nil), ""); m != nil {
		if d := firstDeltaDivergence(base, variant); rc.Cumulative && d != nil && len(d.Cause) > 0 {
			// Name the line whose snapshot went wrong, not the block's last.
			m.Sequence, m.Stage = d.Cause[len(d.Cause)-1], envelope.StageNativeIn
			m.EventType = string(d.Kind) + "/" + string(d.Phase)
			m.Native = natives(fx, d.Cause)
		}
		return m
	}
	if opts.Renderer == nil {
		return nil
	}
	baseOut, err := renderText(opts.Renderer, base, nil)
	if err != nil {
		return err
	}
	if err := rechunkRender(fx, opts, opts.Format, opts.Renderer, variant, nil, baseOut, false); err != nil {
		return err
	}
	return rechunkRender(fx, opts, opts.Format, opts.Renderer, base, nil, baseOut, false)
}

// rechunkRender renders evs with their deltas re-split and compares with
// base, the output of the original events. Legacy markers carry one delta
// per marker, so for them runs of delta markers are merged before comparing.
func rechunkRender(fx *fixtures.Fixture, opts Options, format string, mk NewRenderer, evs []event.Event, seqs []int64, base *text, markers bool) error {
	rc := *opts.Rechunk
	var vseqs []int64
	var variant []event.Event
	rng := rc.rng()
	for i, e := range evs {
		ps := []string{e.Text}
		if e.Phase == event.PhaseDelta && (e.Kind == event.KindText || e.Kind == event.KindThinking) {
			ps = pieces(e.Text, rng)
		}
		for _, p := range ps {
			c := e
			c.Text = p
			variant = append(variant, c)
			if seqs != nil {
				vseqs = append(vseqs, seqs[i])
			}
		}
	}
	got, err := renderText(mk, variant, vseqs)
	if err != nil {
		return err
	}
	want := base
	if markers {
		want, got = mergeDeltaMarkers(base), mergeDeltaMarkers(got)
	}
	check := fmt.Sprintf("rechunk seed %d: %s output with deltas re-split", rc.Seed, format)
	if markers {
		check += " (delta markers merged)"
	}
	return asError(compareText(fx, check, want, got, ""))
}

// asError keeps a nil *Mismatch from becoming a non-nil error.
func asError(m *Mismatch) error {
	if m == nil {
		return nil
	}
	return m
}

// mergeDeltaMarkers joins runs of [CONTENT_DELTA] (or [THINKING_DELTA])
// lines into one line with the concatenated text.
func mergeDeltaMarkers(t *text) *text {
	out := &text{}
	var runMarker, runText string
	var runWho *origin
	flush := func() {
		if runMarker != "" {
			b, _ := json.Marshal(runText)
			out.add([]byte(runMarker+" "+string(b)+"\n"), runWho)
			runMarker = ""
		}
	}
	off := 0
	for _, l := range splitLines(t.out) {
		who := t.at(off)
		off += len(l) + 1
		if marker, s, ok := legacy.ReadDelta(l); ok {
			if marker != runMarker {
				flush()
				runMarker, runText, runWho = marker, "", who
			}
			runText += s
			continue
		}
		flush()
		out.add([]byte(l+"\n"), who)
	}
	flush()
	return out
}
