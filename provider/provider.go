// Package provider defines the descriptor of one agent CLI: everything the
// rest of evcap needs to know about a provider's wire format, given by the
// one package that knows it (normalize/<provider>). A Descriptor names the
// provider, judges its stdout lines (detection), makes its stream and
// history normalizers, follows its streamed delta blocks, and lists the JSON
// keys of its per-run ids.
//
// The package holds types only: no descriptor and no table of providers
// (package providers is the registry). It knows no provider's format.
package provider

import (
	"time"

	"github.com/evcap/evcap/event"
)

// Descriptor describes one agent CLI. Every func field except History,
// DetectHistory and HistoryTime is set; each call of a constructor field returns a fresh
// value, so a Descriptor may be copied and shared freely.
type Descriptor struct {
	// Name is the provider's name in capture envelopes, --provider flags
	// and fixtures ("claude").
	Name string
	// CLI is the name of the provider's executable ("claude").
	CLI string
	// NPMPackage is the npm package the CLI is installed from
	// ("@anthropic-ai/claude-code"); a platform package of it (its native
	// binary) starts with this name and "-". Used to read the installed
	// CLI's version.
	NPMPackage string
	// System is gen_ai.provider.name for OpenTelemetry export: the model
	// vendor where the CLI has one, else the CLI's own name.
	System string

	// Detect judges one native stdout line on its own (without its
	// newline; surrounding space is allowed): the format the line is in
	// and true when only this provider prints such a line. Blank lines,
	// SSE framing lines and lines of other providers give false.
	Detect func(line []byte) (format string, ok bool)
	// Normalizer returns a fresh stream normalizer for one stream.
	Normalizer func(Options) event.Normalizer
	// History returns a fresh normalizer for the provider's stored-session
	// lines (evcap import); nil when the provider has none.
	History func() event.Normalizer
	// DetectHistory reports whether one line of a stored session (a JSONL
	// file the CLI keeps, or one row exported from its database) has a
	// shape only this provider stores; nil when History is nil.
	DetectHistory func(line []byte) bool
	// HistoryTime is the time the CLI stored with one stored-session line
	// (UTC; zero when the line has none); nil when History is nil.
	HistoryTime func(line []byte) time.Time
	// Deltas returns a fresh tracker of one native stream's streamed
	// delta blocks.
	Deltas func() Deltas
	// VolatileIDKeys are JSON object keys whose string values are per-run
	// ids (sanitize pseudonymizes them), sorted.
	VolatileIDKeys []string
	// VolatileIDPrefixes are the prefixes the provider gives its ids
	// ("toolu_", "ses_"), sorted; sanitize keeps them in a pseudonym
	// ("toolu_evcap_0001") so that a reader still sees what the id named.
	VolatileIDPrefixes []string
}

// Options are the reading options a stream normalizer takes. The zero
// value is each normalizer's default; a provider whose output has nothing
// an option applies to ignores it.
type Options struct {
	// CumulativeDeltas reads text and thinking deltas as cumulative
	// snapshots (the whole text of the block so far) rather than pieces,
	// as some Claude-compatible gateways send them.
	CumulativeDeltas bool
}
