package replayrun

import "github.com/evcap/evcap/replay"

// Status is the outcome of one check.
type Status string

// The statuses, from a check (ok, mismatch, error) or an update (updated,
// unchanged, or error).
const (
	StatusOK        Status = "ok"
	StatusMismatch  Status = "mismatch"
	StatusError     Status = "error"
	StatusUpdated   Status = "updated"
	StatusUnchanged Status = "unchanged"
)

// Exit is the exit status s stands for: 2 for an error (bad input), 1 for
// a mismatch, 0 otherwise.
func (s Status) Exit() int {
	switch s {
	case StatusError:
		return 2
	case StatusMismatch:
		return 1
	}
	return 0
}

// Result is the outcome of one check of one input. Its JSON form is a
// result of evcap replay --json.
type Result struct {
	// Path is the input as given, or the fixture directory found under it.
	Path string `json:"path"`
	// Check names what was compared: "native", "normalized → term",
	// "legacy", "exec NAME", "restored", or "load"/"plan" when the input
	// could not be read or planned.
	Check  string `json:"check"`
	Status Status `json:"status"`
	// Golden is the file written (StatusUpdated, StatusUnchanged) or the
	// exec golden compared with.
	Golden string `json:"golden,omitempty"`
	// Error says what went wrong (StatusError), or why a mismatching
	// check wrote nothing or failed without a Mismatch.
	Error string `json:"error,omitempty"`
	// Changes is the line diff an update made to Golden.
	Changes    string             `json:"changes,omitempty"`
	Mismatches []*replay.Mismatch `json:"mismatches,omitempty"`
}

// Report is what Run found: a Result per check, in the order of the paths
// and of each input's plan, and the exit status the worst of them gives.
// Its JSON form is what evcap replay --json prints.
type Report struct {
	Results []Result `json:"results"`
	Exit    int      `json:"exit"`
}
