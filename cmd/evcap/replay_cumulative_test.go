package main

import (
	"bytes"
	"errors"
	"github.com/evcap/evcap/internal/corpustest"
	"os"
	"slices"
	"testing"

	"github.com/evcap/evcap/envelope"
	"github.com/evcap/evcap/fixtures"
	"github.com/evcap/evcap/promote"
	"github.com/evcap/evcap/replay"
	"github.com/google/go-cmp/cmp"
)

// cumulativeOpts are the replay options of a cumulative rechunk run: the
// provider table's normalizer for the original lines, and the same
// provider read with cumulative deltas for the rewritten ones (or, with
// asPieces, read without, which is the defect under test).
func cumulativeOpts(provider string, seed uint64, format string, asPieces bool) replay.Options {
	plain := func() replay.Normalizer { n, _ := newNormalizer(provider); return n }
	cum := func() replay.Normalizer {
		n, _ := newNormalizerWith(provider, normOptions{cumulativeDeltas: true})
		return n
	}
	if asPieces {
		cum = plain
	}
	return replay.Options{Mode: replay.ModeNative, Normalizer: plain, CumulativeNormalizer: cum,
		Rechunk: &replay.Rechunk{Seed: seed, Cumulative: true},
		Format:  format, Renderer: promote.RechunkFormats()[format]}
}

// fixtureNative is a fixture's native lines as replay reads them.
func fixtureNative(fx *fixtures.Fixture) ([]int64, [][]byte) {
	var refs []int64
	var lines [][]byte
	for _, e := range fx.Stage(envelope.StageNativeIn) {
		if e.EventType == envelope.EventStderr || e.EventType == envelope.EventGap {
			continue
		}
		refs = append(refs, e.Sequence)
		lines = append(lines, envelope.DecodeNativeLine(e.EventType, e.Payload))
	}
	return refs, lines
}

// TestFixturesReplayCumulative replays every fixture with its delta lines
// re-split by 20 seeds and made cumulative snapshots, read back with the
// provider's cumulative-deltas option: the coalesced events and the
// rendered output (term, chat and groups in turn) must be the original's.
func TestFixturesReplayCumulative(t *testing.T) {
	corpustest.Heavy(t)
	formats := []string{"term", "chat", "groups"}
	fixturesSeen, rewritten := 0, 0
	err := fixtures.Walk(os.DirFS(fixturesDir), ".", func(dir string, fx *fixtures.Fixture) error {
		fixturesSeen++
		refs, lines := fixtureNative(fx)
		_, split := replay.Rechunk{Seed: 1}.NativeLines(refs, lines)
		_, cum := replay.Rechunk{Seed: 1, Cumulative: true}.NativeLines(refs, lines)
		if !slices.EqualFunc(split, cum, bytes.Equal) {
			rewritten++
		}
		t.Run(dir, func(t *testing.T) {
			for seed := uint64(1); seed <= 20; seed++ {
				err := replay.Run(fx, cumulativeOpts(fx.Provider, seed, formats[seed%3], false))
				var m *replay.Mismatch
				if errors.As(err, &m) {
					t.Errorf("seed %d: %s", seed, m.Error())
				} else if err != nil {
					t.Errorf("seed %d: %v", seed, err)
				}
			}
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if fixturesSeen < 20 {
		t.Fatalf("replayed %d fixtures under %s, want the whole corpus (at least 20)", fixturesSeen, fixturesDir)
	}
	// Claude partial runs (3), Gemini runs with text (3), opencode serve runs (2).
	if rewritten < 8 {
		t.Fatalf("only %d fixtures have delta lines that become snapshots; the check would be vacuous", rewritten)
	}
}

// TestCumulativeReadAsPiecesIsCaught feeds the snapshot lines to a
// normalizer without the cumulative option, as an integration that does
// not know its provider sends snapshots would: replay must fail, naming
// the first native line where the two readings part (found here by
// feeding the lines to both normalizers side by side), with the repeated
// text in the diff. Five seeds: read as pieces, the long runs grow to
// megabytes of repeated text, and every seed is checked the same way.
func TestCumulativeReadAsPiecesIsCaught(t *testing.T) {
	corpustest.Heavy(t)
	const seeds = 5
	caught := 0
	err := fixtures.Walk(os.DirFS(fixturesDir), ".", func(dir string, fx *fixtures.Fixture) error {
		refs, lines := fixtureNative(fx)
		for seed := uint64(1); seed <= seeds; seed++ {
			rc := replay.Rechunk{Seed: seed, Cumulative: true}
			vrefs, vlines := rc.NativeLines(refs, lines)
			plain, _ := newNormalizer(fx.Provider)
			cum, _ := newNormalizerWith(fx.Provider, normOptions{cumulativeDeltas: true})
			var want int64
			for i, l := range vlines {
				if !cmp.Equal(plain.Line(vrefs[i], l), cum.Line(vrefs[i], l)) {
					want = vrefs[i]
					break
				}
			}
			err := replay.Run(fx, cumulativeOpts(fx.Provider, seed, "term", true))
			if want == 0 {
				if err != nil {
					t.Errorf("%s seed %d: both readings agree on every line, yet replay failed: %v", dir, seed, err)
				}
				continue
			}
			var m *replay.Mismatch
			if !errors.As(err, &m) {
				t.Errorf("%s seed %d: snapshots read as pieces from sequence %d on, replay gave %v, want a mismatch", dir, seed, want, err)
				continue
			}
			caught++
			if m.Sequence != want || m.Stage != envelope.StageNativeIn {
				t.Errorf("%s seed %d: mismatch at sequence %d (%s), want native_in %d\n%s", dir, seed, m.Sequence, m.Stage, want, m.Error())
			}
			if m.EventType != "text/delta" && m.EventType != "thinking/delta" {
				t.Errorf("%s seed %d: mismatch eventType %q, want a text or thinking delta", dir, seed, m.EventType)
			}
			if len(m.Got) <= len(m.Want) {
				t.Errorf("%s seed %d: got line %q is not longer than the expected %q: no repeated text", dir, seed, m.Got, m.Want)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if caught < 8*seeds {
		t.Fatalf("caught %d runs, want every seed of the 8 fixtures with multi-delta blocks (%d)", caught, 8*seeds)
	}
}
