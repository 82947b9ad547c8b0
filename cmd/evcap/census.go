package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/evcap/evcap/census"
	"github.com/evcap/evcap/internal/termtext"
	"github.com/spf13/cobra"
)

func newCensusCmd(s streams) *cobra.Command {
	var asJSON bool
	var failOn, provider string
	var cliVersions []string
	cmd := &cobra.Command{
		Use:   "census [--json] [--fail-on-unknown[=types|fields|all]] [--provider auto|PROVIDER] [--cli-version [PROVIDER=]VERSION] FILE|DIR...",
		Short: "Report which native event types and fields the normalizers handle, ignore or do not know",
		Long: `census is the drift report: it runs each file through its provider's
normalizer and counts, per provider and CLI version, every native event type
(type/subtype, item or part type) with what the normalizer does with it:
handled, ignored on purpose (with the reason), or unknown. For every type it
also lists the fields present in the input that the normalizer has never seen
for that type. Run it on the output of a new CLI version before trusting it.

FILEs are raw CLI output or evcap captures (their native_in records), as for
evcap normalize. A DIR is searched recursively for *.jsonl, *.ndjson and
*.sse.txt files; those whose provider cannot be told (request logs, other
JSON) are skipped and counted on stderr, while a FILE named on the command
line that cannot be read or told is an error (exit 2). The provider is the
capture's, or is told from the first lines; --provider names it for input
that cannot be told (and refuses input that plainly is another provider's).
The CLI version is the one the stream reports (Claude Code's system/init,
opencode's session.created), else the cliVersion of a capture's capture.start
record, else --cli-version (PROVIDER=VERSION for one provider, a bare VERSION
for any), else "unknown". Files of the same provider and version are counted
together.

--fail-on-unknown makes census a CI gate: exit status 1 when something
unknown was seen, each such type or field named on stderr with the place it
was first seen. Its value says what fails: "types" (the default when the flag
is given bare; a CLI upgrade that only added a field passes), "fields"
(unknown fields of known types), or "all" (either). --json prints the report
as one JSON document with a fixed key order and sorting.`,
		Example: `  evcap census testdata/corpus/claude/*.stdout.jsonl
  evcap census --fail-on-unknown testdata/corpus        # a CI gate over a tree of captures
  evcap census --cli-version codex=0.172.0 --fail-on-unknown=all codex-new.jsonl gemini-new.jsonl
  evcap census --provider codex old-codex-run.jsonl
  evcap census --json captures/ | jq '.groups[].types[] | select(.disposition=="unknown")'`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			gate, err := census.ParseFailOn(failOn)
			if err != nil {
				return &exitError{code: 2, err: fmt.Errorf("--fail-on-unknown=%s: want types, fields or all", failOn)}
			}
			if provider != "auto" {
				if _, err := newNormalizer(provider); err != nil {
					return &exitError{code: 2, err: fmt.Errorf("--provider: %w", err)}
				}
			}
			versions, err := parseCLIVersions(cliVersions)
			if err != nil {
				return &exitError{code: 2, err: err}
			}
			inputs, err := census.Inputs(args)
			if err != nil {
				return &exitError{code: 2, err: err}
			}
			rep, err := runCensus(cmd.Context(), s, inputs, censusOptions{cliVersions: versions, provider: provider})
			if err != nil {
				return err
			}
			return rep.print(s, asJSON, gate)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the report as JSON")
	cmd.Flags().StringVar(&failOn, "fail-on-unknown", "", "exit 1 when something is unknown: types (the default when given bare), fields or all")
	cmd.Flags().Lookup("fail-on-unknown").NoOptDefVal = string(census.FailTypes)
	cmd.Flags().StringVar(&provider, "provider", "auto", "provider of input that cannot be told: auto, "+strings.Join(providerNames(), ", "))
	cmd.Flags().StringSliceVar(&cliVersions, "cli-version", nil, "CLI version for files whose stream and capture do not say: VERSION for all, or PROVIDER=VERSION (repeatable)")
	return cmd
}

// censusOptions are the settings of one census.
type censusOptions struct {
	cliVersions map[string]string
	provider    string // "auto" or a provider name
}

// parseCLIVersions reads the --cli-version values: PROVIDER=VERSION for
// one provider, a bare VERSION (key "") for every provider.
func parseCLIVersions(vals []string) (map[string]string, error) {
	m := map[string]string{}
	for _, v := range vals {
		provider, version, found := strings.Cut(v, "=")
		if !found {
			provider, version = "", v
		} else if _, err := newNormalizer(provider); err != nil {
			return nil, fmt.Errorf("--cli-version %s: %w", v, err)
		}
		if version == "" {
			return nil, fmt.Errorf("--cli-version %q: empty version", v)
		}
		m[provider] = version
	}
	return m, nil
}

// censusReport is the library's report with the command's output on it.
type censusReport struct{ *census.Report }

// runCensus reads every input and builds the report. A file named on the
// command line that cannot be opened or whose provider cannot be told stops
// the census (exit 2): a report that silently skipped it would understate
// the drift. Files found in a directory that no provider fits are listed in
// Skipped instead.
func runCensus(ctx context.Context, s streams, inputs []census.Input, o censusOptions) (*censusReport, error) {
	c := census.New()
	for _, input := range inputs {
		g, err := censusFile(ctx, s, input.Name, o)
		if errors.Is(err, errNoProvider) && input.InTree {
			c.Skip(input.Name)
			continue
		}
		if err != nil {
			return nil, err
		}
		c.Add(g)
	}
	if c.Counted() == 0 {
		return nil, &exitError{code: 2, err: fmt.Errorf("census: none of the %d file(s) is the output of an agent CLI evcap knows", len(inputs))}
	}
	return &censusReport{c.Report()}, nil
}

// censusFile opens one file, tells its provider and counts it.
func censusFile(ctx context.Context, s streams, name string, o censusOptions) (*census.Group, error) {
	in, err := openNative(s, name)
	if err != nil {
		return nil, &exitError{code: 2, err: err}
	}
	defer in.close()
	provider, err := in.chooseProvider(o.provider)
	if err != nil {
		return nil, &exitError{code: 2, err: noProviderError{err}}
	}
	n, err := newNormalizer(provider)
	if err != nil {
		return nil, &exitError{code: 2, err: err}
	}
	return census.CountFile(ctx, in, n, census.FileOptions{Name: name, Provider: provider,
		Capture: in.IsCapture, Recorded: in.CLIVersion, Fallback: o.cliVersions})
}

// errNoProvider marks a file whose provider could not be told.
var errNoProvider = errors.New("no provider")

// noProviderError is chooseProvider's error, marked as errNoProvider.
type noProviderError struct{ err error }

func (e noProviderError) Error() string   { return e.err.Error() }
func (e noProviderError) Unwrap() []error { return []error{e.err, errNoProvider} }

// print writes the report (JSON or the table) to standard output, the
// skipped files and what the gate fails on to standard error, and returns
// exit status 1 when the gate fails.
func (r *censusReport) print(s streams, asJSON bool, gate census.FailOn) error {
	out := bufio.NewWriter(s.out)
	if asJSON {
		b, err := json.MarshalIndent(r, "", "  ")
		if err != nil {
			return fmt.Errorf("encode census: %w", err)
		}
		out.Write(b)
		out.WriteByte('\n')
	} else if err := r.WriteTable(out); err != nil {
		return fmt.Errorf("write census: %w", err)
	}
	if err := out.Flush(); err != nil {
		return fmt.Errorf("write census: %w", err)
	}
	if len(r.Skipped) > 0 {
		fmt.Fprintf(s.err, "evcap: census: skipped %d file(s) found in directories that no provider's output fits (first: %s)\n",
			len(r.Skipped), termtext.Escape(r.Skipped[0]))
	}
	if msgs := r.failures(gate); len(msgs) > 0 {
		for _, msg := range msgs {
			fmt.Fprintln(s.err, "evcap: census:", msg)
		}
		return &exitError{code: 1, err: fmt.Errorf("census: %d unknown type(s), %d unknown field(s)",
			r.UnknownTypes, r.UnknownFields)}
	}
	return nil
}

// unknownList names every unknown type and field, one message each, in
// report order.
func (r *censusReport) unknownList() []string { return r.failures(census.FailAll) }

// failures names what the gate fails on, one message each, in report
// order, with names from the input escaped for the terminal.
func (r *censusReport) failures(gate census.FailOn) []string {
	var msgs []string
	for _, u := range r.Failures(gate) {
		msgs = append(msgs, u.String())
	}
	return msgs
}
