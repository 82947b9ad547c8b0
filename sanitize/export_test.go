package sanitize

import (
	"context"
	"io"
)

// SanitizeBatched is SanitizeContext with the blocks' streams batching
// batch bytes of deltas (0: every delta looked at), for the tests that
// compare the two.
func SanitizeBatched(ctx context.Context, r io.Reader, name string, w io.Writer, opts Options, batch int) (Report, error) {
	return sanitizeContext(ctx, r, name, w, opts, batch)
}

// StreamBatch is the batch SanitizeContext uses.
const StreamBatch = streamBatch

// RaceEnabled tells the outside tests that the race detector is on.
const RaceEnabled = raceEnabled
