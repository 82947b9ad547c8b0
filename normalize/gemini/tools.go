package gemini

import (
	"encoding/json"

	"github.com/evcap/evcap/internal/textcut"
	"github.com/tidwall/gjson"
)

// summaryFields says which parameter gives the one-line summary of each
// Gemini CLI tool evcap knows; the first present one wins. Other tools
// (grep_search, write_todos, MCP tools…) keep their name, which is not a
// secret, but get an empty summary, so that arguments of tools nobody
// reviewed never reach a rendered log.
var summaryFields = map[string][]string{
	"run_shell_command":   {"command"},
	"read_file":           {"file_path", "absolute_path"},
	"write_file":          {"file_path"},
	"replace":             {"file_path"},
	"glob":                {"pattern"},
	"search_file_content": {"pattern"},
	"list_directory":      {"dir_path", "path"},
	"web_fetch":           {"url", "prompt"},
	"google_web_search":   {"query"},
}

// summarize returns the tool name to report (verbatim) and its summary.
func summarize(name string, params gjson.Result) (string, string) {
	fields, ok := summaryFields[name]
	if !ok {
		return name, ""
	}
	for _, f := range fields {
		if s := params.Get(f); s.Exists() {
			return name, textcut.SummaryNoControls(s.String())
		}
	}
	return name, ""
}

func rawOf(v gjson.Result) json.RawMessage {
	if !v.Exists() || v.Raw == "" {
		return nil
	}
	return json.RawMessage(v.Raw)
}
