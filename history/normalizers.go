package history

import (
	"fmt"
	"sort"
	"strings"

	"github.com/evcap/evcap/envelope"
	"github.com/evcap/evcap/event"
	"github.com/evcap/evcap/normalize/claude"
	"github.com/evcap/evcap/normalize/codex"
	"github.com/evcap/evcap/normalize/gemini"
	"github.com/evcap/evcap/normalize/opencode"
)

// Source is the envelope source of every record Import writes: it tells
// readers of a capture that its native_in records are stored entries, to
// be read with a history normalizer, not lines of a live stream.
const Source = envelope.SourceHistory

// Providers lists the providers whose stored sessions the package reads.
func Providers() []string {
	out := []string{"claude", "codex", "gemini", "opencode"}
	sort.Strings(out)
	return out
}

// NewNormalizer returns a fresh history normalizer for the named provider.
func NewNormalizer(provider string) (event.Normalizer, error) {
	switch provider {
	case "claude":
		return claude.NewHistory(), nil
	case "codex":
		return codex.NewHistory(), nil
	case "gemini":
		return gemini.NewHistory(), nil
	case "opencode":
		return opencode.NewHistory(), nil
	}
	return nil, fmt.Errorf("no history normalizer for provider %q (known: %s)", provider, strings.Join(Providers(), ", "))
}

// newLiveNormalizer returns the stream normalizer of a provider, for a
// live capture that holds no normalized_out records.
func newLiveNormalizer(provider string) (event.Normalizer, error) {
	switch provider {
	case "claude":
		return claude.New(), nil
	case "codex":
		return codex.New(), nil
	case "gemini":
		return gemini.New(), nil
	case "opencode":
		return opencode.New(), nil
	}
	return nil, fmt.Errorf("no normalizer for provider %q (known: %s)", provider, strings.Join(Providers(), ", "))
}
