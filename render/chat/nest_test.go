package chat

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evcap/evcap/internal/corpustest"
	"github.com/sebdah/goldie/v2"
)

// TestExtraGoldens renders the real corpus-extra recordings (subagent,
// hooks, permissions, rate limits, MCP) as chat operations. In the
// subagent runs the status shows the subagent's tool under the call that
// started it, and the subagent's own text never becomes the answer.
func TestExtraGoldens(t *testing.T) {
	g := goldie.New(t, goldie.WithFixtureDir("testdata/extra"), goldie.WithNameSuffix(".chat.golden"))
	files, _ := filepath.Glob("../../testdata/corpus-extra/*/*.stdout.jsonl")
	if len(files) == 0 {
		t.Fatal("no recordings in testdata/corpus-extra")
	}
	nested := 0
	for _, file := range files {
		if corpustest.Provider(file) == "codex" {
			continue // another package's recordings
		}
		name := corpustest.Provider(file) + "/" + corpustest.Base(file)
		t.Run(name, func(t *testing.T) {
			ops := renderCapture(t, file)
			checkOps(t, ops, DefaultInterval)
			for _, op := range ops {
				if strings.Contains(op.Text, "\n↳ ") {
					nested++
				}
			}
			var b bytes.Buffer
			if err := WriteJSONL(&b, ops); err != nil {
				t.Fatal(err)
			}
			g.Assert(t, name, b.Bytes())
		})
	}
	if nested == 0 {
		t.Error("no operation shows a subagent's status under its parent tool call")
	}
}
