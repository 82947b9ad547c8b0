package gemini

// Which top-level members of a Gemini line Line reads, in one pass, by pick
// (jsonpick.Pick), and the index of each in Pick's result.

var lineKeys = []string{"type", "role", "content", "delta", "tool_name", "parameters", "tool_id", "status"}

const (
	lType = iota
	lRole
	lContent
	lDelta
	lToolName
	lParameters
	lToolID
	lStatus
	lineFields
)
