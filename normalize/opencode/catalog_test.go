package opencode_test

import (
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/evcap/evcap/event"
	"github.com/evcap/evcap/normalize/opencode"
)

// catalogFile is the catalog of opencode's bus events and part types,
// derived by catalog/extract.py from the @opencode-ai/sdk type definitions.
const catalogFile = "../../catalog/opencode.json"

// catalogNotHandled lists catalog types this normalizer passes on as
// unknown events on purpose (so a reader and the census see them), by
// exact type or, ending in ".", by prefix; each with the reason.
var catalogNotHandled = map[string]string{
	"session.next.":                   "the v2 session protocol of the SDK types (prompted, step/text/tool started and ended…); opencode 1.18.33 printed none of them in run or serve mode in our recordings, so there is no real sample to map them from",
	"question.":                       "the agent asks the user a question: information a reader wants, with no normalized kind yet",
	"todo.updated":                    "the agent's to-do list: information a reader wants, with no normalized kind yet",
	"pty.":                            "interactive terminal sessions of the TUI; no normalized kind",
	"command.executed":                "a slash command ran; no normalized kind yet",
	"workspace.":                      "workspace lifecycle (ready, failed, status); a failure may matter, so it stays visible",
	"worktree.":                       "worktree lifecycle (ready, failed); a failure may matter, so it stays visible",
	"mcp.browser.open.failed":         "an MCP server's OAuth browser could not open; a failure, kept visible",
	"message.part.updated/agent":      "an @agent mention part of a user message; no normalized kind",
	"message.part.updated/subtask":    "a subtask request part; the subagent itself is followed through its child session",
	"message.part.updated/file":       "an attached file; no normalized kind",
	"message.part.updated/patch":      "a file-change summary of a step; tool events carry the edits",
	"message.part.updated/snapshot":   "a workspace snapshot id; bookkeeping",
	"message.part.updated/retry":      "a retried model call; session.status retry is what is mapped",
	"message.part.updated/compaction": "a compaction marker; no normalized kind yet",
}

func notHandledReason(nt string) string {
	if r, ok := catalogNotHandled[nt]; ok {
		return r
	}
	for k, r := range catalogNotHandled {
		if strings.HasSuffix(k, ".") && strings.HasPrefix(nt, k) {
			return r
		}
	}
	return ""
}

// sampleLine is a bus payload of the catalog type nt ("message.part.updated/tool"
// is a part update with a tool part).
func sampleLine(nt string) string {
	if typ, part, ok := strings.Cut(nt, "/"); ok {
		return fmt.Sprintf(`{"type":%q,"properties":{"part":{"type":%q}}}`, typ, part)
	}
	switch nt {
	case "message.part.updated":
		return `{"type":"message.part.updated","properties":{"part":{"type":"text"}}}`
	case "message.updated":
		return `{"type":"message.updated","properties":{"info":{"role":"assistant"}}}`
	case "session.status":
		return `{"type":"session.status","properties":{"status":{"type":"busy"}}}`
	}
	return fmt.Sprintf(`{"type":%q,"properties":{}}`, nt)
}

// TestCatalogTypesAreHandled classifies a payload of every catalog type:
// each is handled, ignored with a reason, or listed in catalogNotHandled;
// entries of that list that match no catalog type fail too. The catalog
// types left unknown on purpose are logged.
func TestCatalogTypesAreHandled(t *testing.T) {
	b, err := os.ReadFile(catalogFile)
	if err != nil {
		t.Fatal(err)
	}
	var c struct {
		Source string `json:"source"`
		Types  []struct {
			NativeType string `json:"nativeType"`
			TSType     string `json:"tsType"`
		} `json:"types"`
	}
	if err := json.Unmarshal(b, &c); err != nil || len(c.Types) < 50 {
		t.Fatalf("%s: %v (%d types)", catalogFile, err, len(c.Types))
	}
	n := opencode.New()
	used := map[string]bool{}
	var listed []string
	for _, ty := range c.Types {
		cl := n.Classify([]byte(sampleLine(ty.NativeType)))
		if cl.NativeType != ty.NativeType && !strings.HasPrefix(cl.NativeType, ty.NativeType+"/") {
			t.Errorf("%s: sample classified as %q", ty.NativeType, cl.NativeType)
		}
		reason := notHandledReason(ty.NativeType)
		switch {
		case cl.Disposition == event.DispositionIgnored && cl.Reason == "":
			t.Errorf("%s: ignored without a reason", ty.NativeType)
		case cl.Disposition == event.DispositionUnknown && reason == "":
			t.Errorf("%s (%s, %s): neither handled, nor ignored, nor listed in catalogNotHandled", ty.NativeType, ty.TSType, c.Source)
		case cl.Disposition != event.DispositionUnknown && reason != "":
			t.Errorf("%s is handled now; take it out of catalogNotHandled", ty.NativeType)
		case reason != "":
			listed = append(listed, ty.NativeType)
		}
		for k := range catalogNotHandled {
			if k == ty.NativeType || (strings.HasSuffix(k, ".") && strings.HasPrefix(ty.NativeType, k)) {
				used[k] = true
			}
		}
	}
	for k := range catalogNotHandled {
		if !used[k] {
			t.Errorf("catalogNotHandled lists %s, which matches no type of %s", k, c.Source)
		}
	}
	sort.Strings(listed)
	t.Logf("%s: %d types; %d passed on as unknown on purpose: %v", c.Source, len(c.Types), len(listed), listed)
}
