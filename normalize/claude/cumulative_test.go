package claude_test

import (
	"path/filepath"
	"testing"

	"github.com/evcap/evcap/event"
	"github.com/evcap/evcap/internal/corpustest"
	"github.com/evcap/evcap/normalize/claude"
	"github.com/tidwall/gjson"
)

// cumulative pairs the real capture tools-partial with its rewrite into cumulative
// snapshots (testdata/cumulative, made by replay.CumulativeLines and kept so
// by replay's TestCumulativeSynthetics).
func cumulative(t *testing.T) corpustest.Cumulative {
	return corpustest.Cumulative{
		Source:                 filepath.Join(corpustest.Dir(t), "claude", "tools-partial.stdout.jsonl"),
		Snapshots:              "testdata/cumulative/synthetic-tools-partial.jsonl",
		New:                    func() event.Normalizer { return claude.New() },
		NewCumulative:          func() event.Normalizer { return claude.NewWithOptions(claude.Options{CumulativeDeltas: true}) },
		IsDelta:                func(v gjson.Result) bool { return v.Get("event.delta.type").String() == "text_delta" },
		DeltaField:             "text",
		NativeType:             "stream_event/content_block_delta/text_delta",
		RewrittenStatus:        claude.StatusSnapshotRewritten,
		CompletedKeepsPartText: false,
	}
}

// TestCumulativeDeltas: snapshots read with CumulativeDeltas give exactly
// the capture's events; read without it, they repeat text.
func TestCumulativeDeltas(t *testing.T) { cumulative(t).TestMatchesCapture(t) }

// TestCumulativeRewrite: a snapshot that does not extend its block is
// passed on whole after a status event recording the rewrite.
func TestCumulativeRewrite(t *testing.T) { cumulative(t).TestRewrite(t) }
