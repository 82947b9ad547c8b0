package main

import (
	"github.com/evcap/evcap/event"
	"github.com/evcap/evcap/providers"
	"github.com/evcap/evcap/replayrun"
)

// normOptions are the reading options a command can ask of any provider's
// normalizer (replayrun.Reading, which says what each does): read
// deltas as cumulative snapshots (--cumulative-deltas), or the native
// lines of an imported stored session (Fixture.Restored).
type normOptions struct {
	cumulativeDeltas bool
	restored         bool
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

// newNormalizerWith is newNormalizer with reading options
// (replayrun.NewNormalizer, which evcap replay uses too).
func newNormalizerWith(provider string, o normOptions) (event.Normalizer, error) {
	return replayrun.NewNormalizer(provider, replayrun.Reading{CumulativeDeltas: o.cumulativeDeltas, Restored: o.restored})
}

// cumulativeDeltasHelp is the help text of --cumulative-deltas.
const cumulativeDeltasHelp = "read each text/thinking delta as the whole text so far (cumulative snapshots): " +
	"for Claude-compatible gateways and third-party models that resend the whole text in every delta, " +
	"never for the agent CLIs' own output"
