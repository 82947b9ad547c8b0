package opencode

import (
	"encoding/json"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/evcap/evcap/event"
	"github.com/tidwall/gjson"
)

// summaryFields says which input field gives the one-line summary of each
// opencode tool evcap knows. Other tools are reported as "tool" with an
// empty summary, so that arguments of tools nobody reviewed never reach a
// rendered log.
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

// maxSummary is the summary length in characters (runes).
const maxSummary = 120

// maxOutput is how many bytes of a tool output an event keeps.
const maxOutput = 2048

// toolOf builds the Tool of a tool part. input is state.input.
func toolOf(name string, input gjson.Result) *event.Tool {
	var raw json.RawMessage
	if input.Exists() && input.Raw != "" {
		raw = json.RawMessage(input.Raw)
	}
	field, ok := summaryFields[name]
	if !ok {
		return &event.Tool{Name: "tool", Input: raw}
	}
	return &event.Tool{Name: name, Summary: oneLine(input.Get(field).String(), maxSummary), Input: raw}
}

// oneLine collapses s to one line (control characters and runs of white
// space become one space) and cuts it to max runes, marking a cut with "…".
func oneLine(s string, max int) string {
	s = strings.Join(strings.FieldsFunc(s, func(r rune) bool {
		return unicode.IsSpace(r) || unicode.IsControl(r)
	}), " ")
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	r := []rune(s)
	return string(r[:max-1]) + "…"
}

// cutOutput keeps at most maxOutput bytes of s, cut on a rune boundary.
func cutOutput(s string) string {
	if len(s) <= maxOutput {
		return s
	}
	i := maxOutput
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i]
}
