package gemini

// Which top-level members of a Gemini line Line reads, in one pass, by pick
// (pick.go), and the index of each in pick's result.

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
