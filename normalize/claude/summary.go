package claude

import (
	"strings"

	"github.com/evcap/evcap/internal/textcut"
	"github.com/tidwall/gjson"
)

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
		return name, textcut.Summary(input.Get(field).String())
	}
	if strings.HasPrefix(name, "mcp__") {
		return name, ""
	}
	return "tool", ""
}
