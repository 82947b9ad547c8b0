package provider

// DeltaKind says what a streamed piece is part of.
type DeltaKind uint8

// The kinds of streamed pieces.
const (
	DeltaText      DeltaKind = iota + 1 // assistant text
	DeltaThinking                       // reasoning text
	DeltaToolInput                      // a piece of a tool call's input JSON
)

// String names the kind.
func (k DeltaKind) String() string {
	switch k {
	case DeltaText:
		return "text"
	case DeltaThinking:
		return "thinking"
	case DeltaToolInput:
		return "tool-input"
	}
	return "unknown"
}

// Delta is one streamed piece a native line carries.
type Delta struct {
	// Block is the identity of the block the piece belongs to, unique
	// within the stream: a block that ended and a later one never share it.
	Block string
	// Path holds the object keys and array indexes (decimal) from the root
	// of the line's JSON value to the string holding the piece.
	Path []string
	// Offset is where in the line that JSON value starts: 0 for a JSON
	// line, past the "data:" prefix (and its space) for a raw SSE line.
	// A line with Offset > 0 is framed: its piece cannot be moved to lines
	// of its own.
	Offset int
	Kind   DeltaKind
	// Start marks the initial text a block opens with (Claude's
	// content_block_start text): the first piece of Block, carried by the
	// line that opens it, never by a delta line. It belongs to the block's
	// text but is not a delta: a tool re-splitting deltas leaves it whole.
	Start bool
	// Text is the piece's decoded text (what Locate returns), set on
	// every piece that is not Start: the tracker read it to judge the
	// line, so a consumer need not look it up again. It may point into
	// the line and is valid only as long as the line's bytes are.
	Text string
}

// Deltas follows the blocks of one native stream. Line is called with
// every native stdout line in stream order; it returns the pieces the line
// carries (usually zero or one) and ends the blocks the line closes. A line
// that is not JSON carries none. Not safe for concurrent use.
type Deltas interface {
	// Line judges one line (without its newline). The returned slice is
	// valid until the next call.
	Line(line []byte) []Delta
	// Ended lists the blocks the last Line call ended, in a stable order.
	// A block ends before the pieces of the line that ends it; the blocks
	// still open when the stream ends are never listed. The returned
	// slice is valid until the next Line call.
	Ended() []string
}

// ValidDeltas is a Deltas that can judge a line its caller has already
// found to be one valid JSON value (a JSON line, not a framed SSE line)
// without checking it again. LineValid returns what Line would for such a
// line, and moves the tracker on the same way; on a line that is not
// valid JSON what it returns is unspecified.
type ValidDeltas interface {
	Deltas
	LineValid(line []byte) []Delta
}
