package codex_test

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/evcap/evcap/event"
	"github.com/evcap/evcap/internal/corpustest"
	"github.com/evcap/evcap/normalize/codex"
	"github.com/evcap/evcap/provider"
	"github.com/tidwall/gjson"
)

// TestDeltasNone: codex exec prints whole items in every format (its
// legacy --json drops the deltas codex streams), so no line of any exec
// recording (the corpus and every older version's in corpus-extra) carries
// a piece or ends a block.
func TestDeltasNone(t *testing.T) {
	a, _ := filepath.Glob(filepath.Join(corpustest.Dir(t), "codex", "*.stdout.jsonl"))
	b, _ := filepath.Glob("../../testdata/corpus-extra/codex/*/*.stdout.jsonl")
	if len(a) < 5 || len(b) < 20 {
		t.Fatalf("found %d corpus and %d corpus-extra codex captures", len(a), len(b))
	}
	lines := 0
	for _, file := range append(a, b...) {
		for _, l := range corpustest.Deltas(t, codex.Provider(), file) {
			lines++
			if len(l.Deltas) != 0 || len(l.Ended) != 0 {
				t.Errorf("%s:%d: %+v, ended %v", file, l.Ref, l.Deltas, l.Ended)
			}
		}
	}
	if lines < 200 {
		t.Errorf("only %d lines read", lines)
	}
}

// protoRecording is codex 0.39.0's `codex proto` stream of the long-text
// scenario, recorded offline against evcap fake-model (see its README):
// the legacy protocol with its agent_message_delta and
// agent_reasoning_delta lines, which codex exec --json drops.
const protoRecording = "../../providers/testdata/codex-0.39.0-proto/long-text.stdout.jsonl"

// TestDeltasLegacy: in the real codex proto recording and in the synthetic
// legacy stream, the tracker agrees with the normalizer line by line: a line
// carries a piece exactly when the normalizer makes a text or thinking delta
// of it, of the same kind and text, in the block named after that delta's
// part id; the whole line that completes a block ends it, and the block's
// pieces add up to that line's text.
func TestDeltasLegacy(t *testing.T) {
	for _, c := range []struct {
		file            string
		text, thinking  int
		blocks, wholeOn int
	}{
		{protoRecording, 250, 20, 2, 2},
		{"testdata/synthetic-legacy-proto-deltas.jsonl", 2, 2, 2, 2},
	} {
		ls := corpustest.Deltas(t, codex.Provider(), c.file)
		n := codex.New()
		sofar := map[string]string{}
		ended := 0
		for _, l := range ls {
			var deltas []event.Event
			for _, e := range n.Line(l.Ref, l.Line) {
				if e.Phase == event.PhaseDelta && (e.Kind == event.KindText || e.Kind == event.KindThinking) {
					deltas = append(deltas, e)
				}
			}
			if len(deltas) != len(l.Deltas) {
				t.Fatalf("%s:%d: %d pieces, the normalizer made %d deltas", c.file, l.Ref, len(l.Deltas), len(deltas))
			}
			for i, d := range l.Deltas {
				e := deltas[i]
				_, _, text, _ := d.Locate(l.Line)
				wantKind := provider.DeltaText
				if e.Kind == event.KindThinking {
					wantKind = provider.DeltaThinking
				}
				if d.Block != "codex/"+e.PartID || d.Kind != wantKind || text != e.Text || d.Start || d.Offset != 0 {
					t.Errorf("%s:%d: piece %+v %q, the normalizer's delta is %s %s %q", c.file, l.Ref, d, text, e.Kind, e.PartID, e.Text)
				}
				sofar[d.Block] += text
			}
			for _, b := range l.Ended {
				msg := gjson.GetBytes(l.Line, "msg")
				whole := msg.Get("message").String()
				if !msg.Get("message").Exists() {
					whole = msg.Get("text").String()
				}
				if sofar[b] != whole {
					t.Errorf("%s:%d: block %s ends with %q, the whole line says %q", c.file, l.Ref, b, sofar[b], whole)
				}
				ended++
			}
		}
		got := corpustest.Pieces(ls)
		if got[provider.DeltaText] != c.text || got[provider.DeltaThinking] != c.thinking || len(sofar) != c.blocks || ended != c.wholeOn {
			t.Errorf("%s: %d text and %d thinking pieces in %d blocks, %d ended; want %d, %d, %d, %d", c.file,
				got[provider.DeltaText], got[provider.DeltaThinking], len(sofar), ended, c.text, c.thinking, c.blocks, c.wholeOn)
		}
	}
}

// TestDeltasLegacyNumbering: a whole message that was not streamed takes
// a number, as it takes a part id in the normalizer, so the next streamed
// block does not reuse the id of a block already ended; blocks of the
// three kinds are counted apart. The lines are the synthetic legacy
// stream's, reordered.
func TestDeltasLegacyNumbering(t *testing.T) {
	lines := []string{
		`{"id":"1","msg":{"type":"agent_message","message":"All clear.","phase":"final_answer"}}`,
		`{"id":"1","msg":{"type":"agent_reasoning_delta","delta":"Look at "}}`,
		`{"id":"1","msg":{"type":"agent_message_delta","delta":"Checking "}}`,
		`{"id":"1","msg":{"type":"agent_reasoning","text":"Look at "}}`,
		`{"id":"1","msg":{"type":"agent_message","message":"Checking "}}`,
	}
	want := []struct {
		block string
		ended []string
	}{
		{"", nil},
		{"codex/agent_reasoning_1", nil},
		{"codex/agent_message_2", nil},
		{"", []string{"codex/agent_reasoning_1"}},
		{"", []string{"codex/agent_message_2"}},
	}
	d := codex.NewDeltas()
	for i, l := range lines {
		ds := d.Line([]byte(l))
		block := ""
		if len(ds) == 1 {
			block = ds[0].Block
		}
		if block != want[i].block || !slices.Equal(d.Ended(), want[i].ended) || len(ds) > 1 {
			t.Errorf("line %d: pieces %+v ended %v, want block %q ended %v", i+1, ds, d.Ended(), want[i].block, want[i].ended)
		}
	}
}
