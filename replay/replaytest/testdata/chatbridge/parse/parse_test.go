package parse_test

import (
	"path/filepath"
	"testing"

	"example.com/chatbridge/parse"
	"github.com/evcap/evcap/replay/replaytest"
)

// normalizer adapts parse.Line to replaytest.LineNormalizer.
type normalizer struct{}

func (normalizer) Line(b []byte) ([]parse.Event, error) { return parse.Line(b) }

// TestEvents feeds each fixture's lines one at a time to parse.Line and
// compares the events (chatbridge's own type, as JSON) with a golden.
// This package defines no -update flag: EVCAP_UPDATE=1 rewrites it.
func TestEvents(t *testing.T) {
	for _, fx := range []string{"claude-tools", "claude-tools-partial", "claude-error-retry"} {
		t.Run(fx, func(t *testing.T) {
			replaytest.Events(t, filepath.Join("..", "testdata", "fixtures", fx),
				func() replaytest.LineNormalizer[parse.Event] { return normalizer{} },
				replaytest.StreamOptions{Golden: filepath.Join("testdata", fx+".events.golden")})
		})
	}
}
