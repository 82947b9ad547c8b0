package codex

import "github.com/evcap/evcap/provider"

// Deltas follows the streamed delta blocks of a codex exec stream. codex
// exec --json (0.44 and later) and --experimental-json print whole items,
// no deltas, so it reports none.
//
// The legacy format (before 0.44) does stream agent_message_delta and
// agent_reasoning_delta pieces, but each block is completed by a whole
// agent_message or agent_reasoning line that repeats the text, which is
// what the normalizer keeps; they are not reported here yet, so sanitize and
// replay treat those lines as they always have (see provider.Deltas).
type Deltas struct{}

// NewDeltas returns a tracker at the start of a stream.
func NewDeltas() *Deltas { return &Deltas{} }

// Line implements provider.Deltas.
func (*Deltas) Line([]byte) []provider.Delta { return nil }

// Ended implements provider.Deltas.
func (*Deltas) Ended() []string { return nil }
