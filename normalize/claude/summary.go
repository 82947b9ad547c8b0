package claude

import (
	"strings"
	"unicode/utf8"

	"github.com/tidwall/gjson"
)

// maxSummary is the longest tool summary, in runes. One terminal line.
const maxSummary = 120

// summaryField names, per known tool, the input field whose value is safe to
// show as the one-line summary. A tool that is not listed is unknown: its
// name becomes "tool" and its summary stays empty, so arguments of tools we
// have not reviewed never reach a rendered log.
var summaryField = map[string]string{
	"Bash":         "command",
	"Read":         "file_path",
	"Write":        "file_path",
	"Edit":         "file_path",
	"MultiEdit":    "file_path",
	"NotebookEdit": "notebook_path",
	"Grep":         "pattern",
	"Glob":         "pattern",
	"Task":         "description",
	"Agent":        "description",
	"WebFetch":     "url",
	"WebSearch":    "query",
}

// toolName returns the display name and the summary of a tool call.
// MCP tools (mcp__server__tool) keep their name, as the name itself is
// what identifies them, but get no summary: their arguments are arbitrary.
func toolName(name string, input gjson.Result) (string, string) {
	if field, ok := summaryField[name]; ok {
		return name, oneLine(input.Get(field).String())
	}
	if strings.HasPrefix(name, "mcp__") {
		return name, ""
	}
	return "tool", ""
}

// oneLine collapses all whitespace runs (newlines included) to single spaces
// and cuts the result to maxSummary runes, marking a cut with "…".
func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= maxSummary {
		return s
	}
	n := 0
	for i := range s {
		if n == maxSummary-1 {
			return s[:i] + "…"
		}
		n++
	}
	return s
}

// maxOutput is how many bytes of a tool result are kept for display.
const maxOutput = 2048

// cutOutput cuts s to at most maxOutput bytes on a UTF-8 boundary and
// returns it with the length of the whole.
func cutOutput(s string) (string, int) {
	if len(s) <= maxOutput {
		return s, len(s)
	}
	i := maxOutput
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i], len(s)
}
