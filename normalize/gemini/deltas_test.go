package gemini_test

import (
	"path/filepath"
	"testing"

	"github.com/evcap/evcap/event"
	"github.com/evcap/evcap/internal/corpustest"
	"github.com/evcap/evcap/normalize/gemini"
	"github.com/evcap/evcap/provider"
	"github.com/tidwall/gjson"
)

func geminiCaptures(t *testing.T) []string {
	t.Helper()
	a, _ := filepath.Glob(filepath.Join(corpustest.Dir(t), "gemini", "*.stdout.jsonl"))
	b, _ := filepath.Glob("../../testdata/corpus-extra/gemini/*.stdout.jsonl")
	if len(a) < 4 || len(b) < 1 {
		t.Fatalf("found %d corpus and %d corpus-extra gemini captures", len(a), len(b))
	}
	return append(a, b...)
}

// TestDeltasCorpus: every assistant message line with delta:true yields
// exactly one text piece at content and no other line yields one; a run
// ends at the first JSON line after it that is neither such a delta nor a
// user message; and the runs are the normalizer's (the piece of a line is
// in the block named after the part id of the delta event the normalizer
// makes of that line).
func TestDeltasCorpus(t *testing.T) {
	pieces, runs := 0, 0
	for _, file := range geminiCaptures(t) {
		ls := corpustest.Deltas(t, gemini.Provider(), file)
		// The normalizer's delta events, by the line that caused them.
		partOf := map[int64]string{}
		n := gemini.New()
		for _, l := range ls {
			for _, e := range n.Line(l.Ref, l.Line) {
				if e.Kind == event.KindText && e.Phase == event.PhaseDelta {
					partOf[e.Cause[0]] = e.PartID
				}
			}
		}
		open := ""
		for _, l := range ls {
			v := gjson.ParseBytes(l.Line)
			isDelta := v.Get("type").String() == "message" && v.Get("role").String() == "assistant" && v.Get("delta").Bool()
			isUser := v.Get("type").String() == "message" && v.Get("role").String() == "user"
			switch {
			case isDelta:
				if len(l.Deltas) != 1 || corpustest.PathString(l.Deltas[0].Path) != "content" || l.Deltas[0].Kind != provider.DeltaText {
					t.Fatalf("%s:%d: got %+v, want one text piece at content", file, l.Ref, l.Deltas)
				}
				d := l.Deltas[0]
				if open != "" && d.Block != open {
					t.Errorf("%s:%d: new block %q while %q is open", file, l.Ref, d.Block, open)
				}
				if p, ok := partOf[l.Ref]; ok && d.Block != "gemini/"+p {
					t.Errorf("%s:%d: block %q, the normalizer's part is %q", file, l.Ref, d.Block, p)
				}
				if open == "" {
					runs++
				}
				open = d.Block
				pieces++
			case len(l.Deltas) != 0:
				t.Errorf("%s:%d: a line that is no delta gave %+v", file, l.Ref, l.Deltas)
			case isUser || !gjson.ValidBytes(l.Line):
				if len(l.Ended) != 0 {
					t.Errorf("%s:%d: a user message or non-JSON line ended %v", file, l.Ref, l.Ended)
				}
			default:
				want := 0
				if open != "" {
					want = 1
				}
				if len(l.Ended) != want || (want == 1 && l.Ended[0] != open) {
					t.Errorf("%s:%d: ended %v, want [%s]", file, l.Ref, l.Ended, open)
				}
				open = ""
			}
		}
	}
	if pieces < 20 || runs < 4 {
		t.Errorf("only %d pieces in %d runs", pieces, runs)
	}
	t.Logf("%d pieces in %d runs", pieces, runs)
}

// TestDeltasUserMessageInRun: a user message between two assistant deltas
// does not end the run (the normalizer ignores it, so its text block goes
// on), where sanitize/blocks.go ended the run at any message that was not
// a delta. Lines shaped like the corpus's.
func TestDeltasUserMessageInRun(t *testing.T) {
	tr := gemini.NewDeltas()
	lines := []string{
		`{"type":"message","timestamp":"2026-01-01T00:00:00.000Z","role":"assistant","content":"Hel","delta":true}`,
		`{"type":"message","timestamp":"2026-01-01T00:00:00.001Z","role":"user","content":"more"}`,
		`{"type":"message","timestamp":"2026-01-01T00:00:00.002Z","role":"assistant","content":"lo","delta":true}`,
		`not json`,
		`{"type":"result","timestamp":"2026-01-01T00:00:00.003Z","status":"success"}`,
	}
	var blocks []string
	for i, l := range lines {
		ds := tr.Line([]byte(l))
		for _, d := range ds {
			blocks = append(blocks, d.Block)
		}
		if ended := tr.Ended(); (i == 4) != (len(ended) == 1) {
			t.Errorf("line %d ended %v", i+1, ended)
		}
	}
	if len(blocks) != 2 || blocks[0] != blocks[1] {
		t.Errorf("blocks %v, want one block for both pieces", blocks)
	}
}
