package claude

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/evcap/evcap/internal/textcut"
	"github.com/tidwall/gjson"
)

func TestToolName(t *testing.T) {
	long := strings.Repeat("é", 200)
	for _, tc := range []struct {
		reason, name, input, wantName, wantSummary string
	}{
		{"Bash collapses lines", "Bash", `{"command":"ls\n\t-la  /tmp"}`, "Bash", "ls -la /tmp"},
		{"Bash is cut to 120 runes", "Bash", `{"command":"` + long + `"}`, "Bash", strings.Repeat("é", 119) + "…"},
		{"Read shows the path", "Read", `{"file_path":"/p/a.go","offset":3}`, "Read", "/p/a.go"},
		{"NotebookEdit shows the notebook", "NotebookEdit", `{"notebook_path":"/p/n.ipynb"}`, "NotebookEdit", "/p/n.ipynb"},
		{"Grep shows the pattern", "Grep", `{"pattern":"func main","path":"/p"}`, "Grep", "func main"},
		{"Agent shows the description", "Agent", `{"description":"find tests","prompt":"long secret prompt"}`, "Agent", "find tests"},
		{"WebFetch shows the URL", "WebFetch", `{"url":"https://example.com","prompt":"x"}`, "WebFetch", "https://example.com"},
		{"WebSearch shows the query", "WebSearch", `{"query":"go fuzz"}`, "WebSearch", "go fuzz"},
		{"MCP tools keep their name, no summary", "mcp__github__create_issue", `{"title":"t","token":"x"}`, "mcp__github__create_issue", ""},
		{"unlisted tools keep their name, no summary", "TodoWrite", `{"todos":[{"content":"secret"}]}`, "TodoWrite", ""},
	} {
		name, summary := toolName(tc.name, gjson.Parse(tc.input))
		if name != tc.wantName || summary != tc.wantSummary {
			t.Errorf("%s: toolName(%s) = %q, %q; want %q, %q", tc.reason, tc.name, name, summary, tc.wantName, tc.wantSummary)
		}
		if utf8.RuneCountInString(summary) > textcut.SummaryRunes {
			t.Errorf("%s: summary has %d runes", tc.reason, utf8.RuneCountInString(summary))
		}
	}
}
