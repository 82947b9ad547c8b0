package claude

import (
	"fmt"
	"io"

	"github.com/evcap/evcap/event"
)

// NewConverter returns an io.WriteCloser that normalizes Claude Code stream-json output
// written to it in chunks of any size and calls emit with each event, in
// order; see event.Converter for line numbering and the torn last line.
func NewConverter(emit func(event.Event)) *event.Converter {
	return event.NewConverter(New(), emit)
}

// Normalize reads a whole Claude Code stream-json output stream from r and returns its
// normalized events (line numbers as causes). A torn last line is
// normalized like any other line. Only a read error is returned.
func Normalize(r io.Reader) ([]event.Event, error) {
	evs, err := event.ReadAll(r, New())
	if err != nil {
		return evs, fmt.Errorf("claude: %w", err)
	}
	return evs, nil
}
