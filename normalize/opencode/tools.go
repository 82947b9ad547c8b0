package opencode

import (
	"encoding/json"

	"github.com/evcap/evcap/event"
	"github.com/evcap/evcap/internal/textcut"
	"github.com/tidwall/gjson"
)

// summaryFields says which input field gives the one-line summary of each
// opencode tool evcap knows. Other tools keep their name, which is not a
// secret, but get an empty summary, so that arguments of tools nobody
// reviewed never reach a rendered log.
var summaryFields = map[string]string{
	"bash":      "command",
	"read":      "filePath",
	"write":     "filePath",
	"edit":      "filePath",
	"grep":      "pattern",
	"glob":      "pattern",
	"list":      "path",
	"task":      "description",
	"webfetch":  "url",
	"websearch": "query",
}

// toolOf builds the Tool of a tool part. input is state.input.
func toolOf(name string, input gjson.Result) *event.Tool {
	var raw json.RawMessage
	if input.Exists() && input.Raw != "" {
		raw = json.RawMessage(input.Raw)
	}
	field, ok := summaryFields[name]
	if !ok {
		return &event.Tool{Name: name, Input: raw}
	}
	return &event.Tool{Name: name, Summary: textcut.SummaryNoControls(input.Get(field).String()), Input: raw}
}
