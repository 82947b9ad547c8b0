package legacy

import (
	"strings"

	"github.com/tidwall/gjson"
)

// The markers that carry streamed text. A run of one of them within a
// message is one streamed block: its pieces joined are the block's text.
const (
	ContentDelta  = "[CONTENT_DELTA]"
	ThinkingDelta = "[THINKING_DELTA]"
)

// The markers that close every run of delta markers (EndsBlocks).
const (
	messageStart = "[MESSAGE_START]"
	messageEnd   = "[MESSAGE_END]"
	streamEnd    = "[STREAM_END]"
)

// ReadDelta reads a marker line (without its newline) that carries a
// piece of streamed text: its marker (ContentDelta or ThinkingDelta) and
// the piece, its JSON string decoded. ok is false for any other line, and
// for a delta marker whose argument is not one JSON string.
func ReadDelta(line string) (marker, text string, ok bool) {
	marker, arg, found := strings.Cut(line, " ")
	if !found || marker != ContentDelta && marker != ThinkingDelta {
		return "", "", false
	}
	v := gjson.Parse(arg)
	if v.Type != gjson.String || !gjson.Valid(arg) {
		return "", "", false
	}
	return marker, v.String(), true
}

// EndsBlocks reports whether the marker line (or the bare marker) closes
// every run of delta markers before it: a message's start or end, or the
// stream's end. Runs are broken by nothing else: the markers of a tool
// call, its result or usage may come between the pieces of one block.
func EndsBlocks(line string) bool {
	marker, _, _ := strings.Cut(line, " ")
	switch marker {
	case messageStart, messageEnd, streamEnd:
		return true
	}
	return false
}
