package main

import (
	"fmt"
	"sort"
	"strings"

	"github.com/evcap/evcap/event"
	"github.com/evcap/evcap/history"
	"github.com/evcap/evcap/normalize/claude"
	"github.com/evcap/evcap/normalize/codex"
	"github.com/evcap/evcap/normalize/gemini"
	"github.com/evcap/evcap/normalize/opencode"
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

// normalizers is the provider table: every agent CLI evcap understands, by
// the name used in capture envelopes, --provider flags and normalize/detect,
// mapped to a constructor of a fresh normalizer for one stream. Adding a
// provider means adding a line here and nowhere else in cmd.
//
// It is a function rather than a package variable so that no command can
// change the table another one sees.
func normalizers() map[string]func(normOptions) event.Normalizer {
	return map[string]func(normOptions) event.Normalizer{
		"claude": func(o normOptions) event.Normalizer {
			return claude.NewWithOptions(claude.Options{CumulativeDeltas: o.cumulativeDeltas})
		},
		"codex": func(normOptions) event.Normalizer { return codex.New() },
		"opencode": func(o normOptions) event.Normalizer {
			return opencode.NewWithOptions(opencode.Options{CumulativeDeltas: o.cumulativeDeltas})
		},
		"gemini": func(o normOptions) event.Normalizer {
			return gemini.NewWithOptions(gemini.Options{CumulativeDeltas: o.cumulativeDeltas})
		},
	}
}

// providerNames lists the provider table's names in sorted order, for help
// texts and error messages.
func providerNames() []string {
	var names []string
	for name := range normalizers() {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}

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
	mk, ok := normalizers()[provider]
	if !ok {
		return nil, fmt.Errorf("unknown provider %q (known: %s)", provider, strings.Join(providerNames(), ", "))
	}
	return mk(o), nil
}

// cumulativeDeltasHelp is the help text of --cumulative-deltas.
const cumulativeDeltasHelp = "read each text/thinking delta as the whole text so far (cumulative snapshots): " +
	"for Claude-compatible gateways and third-party models that resend the whole text in every delta, " +
	"never for the agent CLIs' own output"
