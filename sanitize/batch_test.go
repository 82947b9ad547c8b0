package sanitize_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/evcap/evcap/bench/gen"
	"github.com/evcap/evcap/capture"
	"github.com/evcap/evcap/internal/corpustest"
	"github.com/evcap/evcap/sanitize"
)

// TestBatchedStreamsChangeNothing sanitizes real captures, and a
// generated Claude run with a planted secret every few turns (split
// across deltas by the generator), once with the blocks' streams looking
// at every delta and once batching as Sanitize does (and in batches of a
// few deltas, which put more batch ends inside secrets): the output must
// be the same bytes, with the default bounds and with a small MaxHeld, under
// which records behind a batching stream make it release early (and the
// oldest block is cut) again and again.
func TestBatchedStreamsChangeNothing(t *testing.T) {
	type input struct {
		name string
		in   []byte
		opts sanitize.Options
	}
	var inputs []input
	for _, c := range corpusCaptures(t) {
		if sanitize.RaceEnabled && !strings.Contains(c.name, "partial") {
			continue // the detector slows this sequential code only: the streamed captures are enough
		}
		inputs = append(inputs, input{c.name, c.build(t, nil), c.machine().options()})
	}
	raw := filepath.Join(t.TempDir(), "gen.stdout.jsonl")
	var g bytes.Buffer
	size := int64(1 << 20)
	if sanitize.RaceEnabled {
		size = 192 << 10
	}
	if _, err := gen.Write(&g, gen.Options{Provider: "claude", Size: size, Seed: 11, SecretEvery: 3}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(raw, g.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	inputs = append(inputs, input{"generated claude", corpustest.Capture(t, corpustest.Recording{
		Native:    raw,
		Begin:     capture.Start{EvcapVersion: "test", Provider: "claude", Argv: []string{"claude", "-p", "prompt"}, OS: "linux", Arch: "amd64"},
		CaptureID: "01JDXQ4ZP8V6S1N0W9H3B5C7D2",
		Now:       corpustest.Clock(time.Date(2026, 12, 2, 14, 0, 0, 0, time.UTC), time.Millisecond),
	}), sanitize.Options{Home: "/home/dev", DefaultProject: "/home/dev/src/app"}})

	withSecrets := 0
	for _, in := range inputs {
		for _, run := range []struct{ maxHeld, batch int }{{0, sanitize.StreamBatch}, {8 << 10, sanitize.StreamBatch}, {0, 40}} {
			maxHeld := run.maxHeld
			opts := in.opts
			opts.MaxHeld = maxHeld
			var each, batched bytes.Buffer
			repEach, err := sanitize.SanitizeBatched(context.Background(), bytes.NewReader(in.in), "in.jsonl", &each, opts, 0)
			if err != nil {
				t.Fatalf("%s: %v", in.name, err)
			}
			repBatched, err := sanitize.SanitizeBatched(context.Background(), bytes.NewReader(in.in), "in.jsonl", &batched, opts, run.batch)
			if err != nil {
				t.Fatalf("%s: %v", in.name, err)
			}
			if !bytes.Equal(each.Bytes(), batched.Bytes()) {
				t.Errorf("%s, MaxHeld %d, batch %d: batched streams change the output:\n%s", in.name, maxHeld, run.batch, firstDiff(each.Bytes(), batched.Bytes()))
			}
			if repEach != repBatched {
				t.Errorf("%s, MaxHeld %d, batch %d: report %+v, batched %+v", in.name, maxHeld, run.batch, repEach, repBatched)
			}
			if repEach.Redactions > 0 {
				withSecrets++
			}
		}
	}
	if withSecrets < 2 {
		t.Fatalf("only %d runs redacted anything: the comparison says nothing about secrets", withSecrets)
	}
}
