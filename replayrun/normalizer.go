package replayrun

import (
	"fmt"
	"strings"

	"github.com/evcap/evcap/event"
	"github.com/evcap/evcap/history"
	"github.com/evcap/evcap/provider"
	"github.com/evcap/evcap/providers"
)

// Reading are the reading options a caller can ask of any provider's
// normalizer; a provider whose output has nothing they apply to ignores
// them. The zero value is each normalizer's default.
type Reading struct {
	// CumulativeDeltas reads text and thinking deltas as cumulative
	// snapshots (--cumulative-deltas). Codex prints no deltas, and
	// opencode run prints whole parts, so it changes nothing for them.
	CumulativeDeltas bool
	// Restored reads the native lines of an imported stored session
	// (evcap import, Fixture.Restored) with the provider's history
	// normalizer; CumulativeDeltas does not apply to it.
	Restored bool
}

// NewNormalizer returns a fresh normalizer for the named provider (package
// providers) read as r says, or an error listing the providers there are.
func NewNormalizer(name string, r Reading) (event.Normalizer, error) {
	if r.Restored {
		return history.NewNormalizer(name)
	}
	d, ok := providers.Lookup(name)
	if !ok {
		return nil, fmt.Errorf("unknown provider %q (known: %s)", name, strings.Join(providers.Names(), ", "))
	}
	return d.Normalizer(provider.Options{CumulativeDeltas: r.CumulativeDeltas}), nil
}
