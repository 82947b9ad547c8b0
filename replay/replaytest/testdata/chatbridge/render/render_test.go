package render_test

import (
	"flag"
	"path/filepath"
	"testing"

	"example.com/chatbridge/render"
	"github.com/evcap/evcap/replay/replaytest"
)

// update is this package's own -update flag, as many Go projects define
// one; replaytest honours it (go test ./render -update) and defines none
// of its own, so there is no "flag redefined" panic.
var update = flag.Bool("update", false, "rewrite the golden files")

// TestTranscript re-drives the whole pipeline (parser and renderer) from
// each fixture under every chunking replaytest tries.
func TestTranscript(t *testing.T) {
	_ = *update
	for _, fx := range []string{"claude-tools", "claude-tools-partial", "claude-error-retry"} {
		t.Run(fx, func(t *testing.T) {
			replaytest.Stream(t, filepath.Join("..", "testdata", "fixtures", fx), render.Pipeline,
				replaytest.StreamOptions{Golden: filepath.Join("testdata", fx+".transcript.golden")})
		})
	}
}
