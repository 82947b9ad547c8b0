package history

import (
	"fmt"
	"strings"

	"github.com/evcap/evcap/envelope"
	"github.com/evcap/evcap/event"
	"github.com/evcap/evcap/provider"
	"github.com/evcap/evcap/providers"
)

// Source is the envelope source of every record Import writes: it tells
// readers of a capture that its native_in records are stored entries, to
// be read with a history normalizer, not lines of a live stream.
const Source = envelope.SourceHistory

// Providers lists the providers whose stored sessions the package reads:
// those whose descriptor has a History normalizer (package providers).
func Providers() []string { return providers.HistoryNames() }

// NewNormalizer returns a fresh history normalizer for the named provider.
func NewNormalizer(name string) (event.Normalizer, error) {
	d, ok := providers.Lookup(name)
	if !ok || d.History == nil {
		return nil, fmt.Errorf("no history normalizer for provider %q (known: %s)", name, strings.Join(Providers(), ", "))
	}
	return d.History(), nil
}

// newLiveNormalizer returns the stream normalizer of a provider, for a
// live capture that holds no normalized_out records.
func newLiveNormalizer(name string) (event.Normalizer, error) {
	d, ok := providers.Lookup(name)
	if !ok {
		return nil, fmt.Errorf("no normalizer for provider %q (known: %s)", name, strings.Join(providers.Names(), ", "))
	}
	return d.Normalizer(provider.Options{}), nil
}
