package gemini

import (
	"encoding/json"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/tidwall/gjson"
)

// summaryFields says which parameter gives the one-line summary of each
// Gemini CLI tool evcap knows; the first present one wins. Other tools are
// reported as "tool" with an empty summary, so that arguments of tools
// nobody reviewed never reach a rendered log.
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

// maxSummary is the summary length in characters (runes).
const maxSummary = 120

// maxOutput is how many bytes of a tool output an event keeps.
const maxOutput = 2048

// summarize returns the tool name to report and its summary.
func summarize(name string, params gjson.Result) (string, string) {
	fields, ok := summaryFields[name]
	if !ok {
		return "tool", ""
	}
	for _, f := range fields {
		if s := params.Get(f); s.Exists() {
			return name, oneLine(s.String())
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

// oneLine collapses s to one line (control characters and runs of white
// space become one space) and cuts it to maxSummary runes, marking a cut
// with "…".
func oneLine(s string) string {
	s = strings.Join(strings.FieldsFunc(s, func(r rune) bool {
		return unicode.IsSpace(r) || unicode.IsControl(r)
	}), " ")
	if utf8.RuneCountInString(s) <= maxSummary {
		return s
	}
	r := []rune(s)
	return string(r[:maxSummary-1]) + "…"
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
