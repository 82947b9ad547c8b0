package codex_test

import (
	"path/filepath"
	"testing"

	"github.com/evcap/evcap/internal/corpustest"
	"github.com/evcap/evcap/normalize/codex"
)

// TestDeltasNone: codex exec prints whole items in every format evcap
// reads, so no line of any recording (the corpus and every older version's
// in corpus-extra) carries a piece or ends a block.
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
