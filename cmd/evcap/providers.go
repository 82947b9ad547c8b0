package main

import (
	"fmt"
	"strings"

	"github.com/evcap/evcap/event"
	"github.com/evcap/evcap/history"
	providerpkg "github.com/evcap/evcap/provider"
	"github.com/evcap/evcap/providers"
)

// normOptions are the reading options a command can ask of any provider's
// normalizer; a provider whose output has nothing they apply to ignores
// them. The zero value is each normalizer's default.
type normOptions struct {
	// cumulativeDeltas reads text and thinking deltas as cumulative
	// snapshots (--cumulative-deltas). Codex prints no deltas, and
	// opencode run prints whole parts, so it changes nothing for them.
	cumulativeDeltas bool
	// restored reads the native lines of an imported stored session
	// (evcap import, Fixture.Restored) with the provider's history
	// normalizer; the other options do not apply to it.
	restored bool
}

// providerNames lists the providers evcap understands (package
// providers, the one provider table), in sorted order, for help texts and
// error messages.
func providerNames() []string { return providers.Names() }

// newNormalizer returns a fresh normalizer for the named provider with its
// default options, or an error listing the providers there are.
func newNormalizer(provider string) (event.Normalizer, error) {
	return newNormalizerWith(provider, normOptions{})
}

// newNormalizerWith is newNormalizer with reading options.
func newNormalizerWith(provider string, o normOptions) (event.Normalizer, error) {
	if o.restored {
		return history.NewNormalizer(provider)
	}
	d, ok := providers.Lookup(provider)
	if !ok {
		return nil, fmt.Errorf("unknown provider %q (known: %s)", provider, strings.Join(providerNames(), ", "))
	}
	return d.Normalizer(providerpkg.Options{CumulativeDeltas: o.cumulativeDeltas}), nil
}

// cumulativeDeltasHelp is the help text of --cumulative-deltas.
const cumulativeDeltasHelp = "read each text/thinking delta as the whole text so far (cumulative snapshots): " +
	"for Claude-compatible gateways and third-party models that resend the whole text in every delta, " +
	"never for the agent CLIs' own output"
