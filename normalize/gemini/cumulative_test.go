package gemini_test

import (
	"path/filepath"
	"testing"

	"github.com/evcap/evcap/event"
	"github.com/evcap/evcap/internal/corpustest"
	"github.com/evcap/evcap/normalize/gemini"
	"github.com/tidwall/gjson"
)

// cumulative pairs the real capture tools with its rewrite into cumulative
// snapshots (testdata/cumulative, made by replay.CumulativeLines and kept so
// by replay's TestCumulativeSynthetics).
func cumulative(t *testing.T) corpustest.Cumulative {
	return corpustest.Cumulative{
		Source:                 filepath.Join(corpustest.Dir(t), "gemini", "tools.stdout.jsonl"),
		Snapshots:              "testdata/cumulative/synthetic-tools.jsonl",
		New:                    func() event.Normalizer { return gemini.New() },
		NewCumulative:          func() event.Normalizer { return gemini.NewWithOptions(gemini.Options{CumulativeDeltas: true}) },
		IsDelta:                func(v gjson.Result) bool { return v.Get("type").String() == "message" && v.Get("delta").Bool() },
		DeltaField:             "content",
		NativeType:             "message/assistant",
		RewrittenStatus:        gemini.StatusSnapshotRewritten,
		CompletedKeepsPartText: false,
	}
}

// TestCumulativeDeltas: snapshots read with CumulativeDeltas give exactly
// the capture's events; read without it, they repeat text.
func TestCumulativeDeltas(t *testing.T) { cumulative(t).TestMatchesCapture(t) }

// TestCumulativeRewrite: a snapshot that does not extend its block is
// passed on whole after a status event recording the rewrite.
func TestCumulativeRewrite(t *testing.T) { cumulative(t).TestRewrite(t) }
