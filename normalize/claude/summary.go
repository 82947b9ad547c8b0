package claude

import (
	"github.com/evcap/evcap/internal/textcut"
	"github.com/tidwall/gjson"
)

// summaryField names, per known tool, the input field whose value is safe to
// show as the one-line summary. A tool that is not listed keeps its name (a
// tool's name is not a secret) but gets no summary, so arguments of tools we
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

// toolName returns the name, verbatim, and the summary of a tool call: the
// allowlisted field of a known tool, nothing for any other (MCP tools
// included, whose arguments are arbitrary).
func toolName(name string, input gjson.Result) (string, string) {
	if field, ok := summaryField[name]; ok {
		return name, textcut.Summary(input.Get(field).String())
	}
	return name, ""
}
