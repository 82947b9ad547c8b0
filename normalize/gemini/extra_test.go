package gemini_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/evcap/evcap/event"
	"github.com/evcap/evcap/internal/corpustest"
	"github.com/google/go-cmp/cmp"
	"github.com/tidwall/gjson"
)

// extraDir holds real Gemini CLI recordings beyond the shared corpus (a
// built-in tool without a summary, an MCP tool); see its MANIFEST.md.
const extraDir = "../../testdata/corpus-extra/gemini"

// TestExtraToolsVerbatim checks the recordings: every tool_use gives a tool
// event with the same name, verbatim, and an empty summary for tools not on
// the allowlist; every tool_result output arrives; the assistant text is
// the concatenated message deltas.
func TestExtraToolsVerbatim(t *testing.T) {
	files, _ := filepath.Glob(extraDir + "/*.stdout.jsonl")
	if len(files) == 0 {
		t.Fatal("no recordings in " + extraDir)
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			var names, outputs []string
			var text strings.Builder
			corpustest.EachLine(t, file, func(_ int64, line []byte) {
				v := gjson.ParseBytes(line)
				switch v.Get("type").String() {
				case "tool_use":
					names = append(names, v.Get("tool_name").String())
				case "tool_result":
					outputs = append(outputs, v.Get("output").String())
				case "message":
					if v.Get("role").String() == "assistant" {
						text.WriteString(v.Get("content").String())
					}
				}
			})
			var gotNames, gotOutputs []string
			var gotText strings.Builder
			for _, e := range normalizeFile(t, file) {
				switch {
				case e.Kind == event.KindTool:
					gotNames = append(gotNames, e.Tool.Name)
					if e.Tool.Summary != "" {
						t.Errorf("tool %s has summary %q; none of these tools is allowlisted", e.Tool.Name, e.Tool.Summary)
					}
				case e.Kind == event.KindToolResult:
					gotOutputs = append(gotOutputs, e.ToolResult.Output)
				case e.Kind == event.KindText && e.Phase == event.PhaseDelta:
					gotText.WriteString(e.Text)
				}
			}
			if len(names) == 0 {
				t.Fatal("no tool_use lines")
			}
			if d := cmp.Diff(names, gotNames); d != "" {
				t.Errorf("tool names (-raw +events):\n%s", d)
			}
			if d := cmp.Diff(outputs, gotOutputs); d != "" {
				t.Errorf("tool outputs (-raw +events):\n%s", d)
			}
			if text.String() == "" || gotText.String() != text.String() {
				t.Errorf("text %q, raw %q", gotText.String(), text.String())
			}
		})
	}
}
