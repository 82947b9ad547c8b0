// Package groups folds normalized events into what a chat UI keeps on
// screen: per assistant message an ordered list of blocks (thinking and
// text with their full text, tool calls with name, summary, status and a
// result excerpt), plus the session, the latest token totals, errors and
// the final result.
//
// It exists to catch rendering bugs by replaying normalized events: a
// duplicated text shows up as two blocks or a mismatch flag, a tool that
// never got its result stays "running", a lost block is simply missing.
// So the accumulator reconciles rather than hides: when a completed block
// arrives after deltas, the completed text is kept, and if it differs from
// the concatenated deltas the block is flagged (Mismatch). A completed or
// delta event for a block that is already completed starts a new block.
//
// Grouping: an event with a MessageID goes to that message (created on
// first sight); one without goes to the current (latest) message. Tool
// results go to the block of their ToolCallID wherever it is. The package
// writes JSON with a fixed key order; it knows nothing of files, terminals
// or providers.
package groups
