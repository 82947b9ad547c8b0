package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/evcap/evcap/event"
	"github.com/spf13/cobra"
)

// The values of census --fail-on-unknown.
const (
	failOnTypes  = "types"  // exit 1 on unknown native types
	failOnFields = "fields" // exit 1 on unknown fields of known types
	failOnAll    = "all"    // exit 1 on either
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
			switch failOn {
			case "", failOnTypes, failOnFields, failOnAll:
			default:
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
			inputs, err := censusInputs(args)
			if err != nil {
				return &exitError{code: 2, err: err}
			}
			rep, err := runCensus(cmd.Context(), s, inputs, censusOptions{cliVersions: versions, provider: provider})
			if err != nil {
				return err
			}
			out := bufio.NewWriter(s.out)
			if asJSON {
				b, err := json.MarshalIndent(rep, "", "  ")
				if err != nil {
					return fmt.Errorf("encode census: %w", err)
				}
				out.Write(b)
				out.WriteByte('\n')
			} else {
				writeCensusTable(out, rep)
			}
			if err := out.Flush(); err != nil {
				return fmt.Errorf("write census: %w", err)
			}
			if len(rep.Skipped) > 0 {
				fmt.Fprintf(s.err, "evcap: census: skipped %d file(s) found in directories that no provider's output fits (first: %s)\n",
					len(rep.Skipped), escapeControls(rep.Skipped[0]))
			}
			if msgs := rep.failures(failOn); len(msgs) > 0 {
				for _, msg := range msgs {
					fmt.Fprintln(s.err, "evcap: census:", msg)
				}
				return &exitError{code: 1, err: fmt.Errorf("census: %d unknown type(s), %d unknown field(s)",
					rep.UnknownTypes, rep.UnknownFields)}
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the report as JSON")
	cmd.Flags().StringVar(&failOn, "fail-on-unknown", "", "exit 1 when something is unknown: types (the default when given bare), fields or all")
	cmd.Flags().Lookup("fail-on-unknown").NoOptDefVal = failOnTypes
	cmd.Flags().StringVar(&provider, "provider", "auto", "provider of input that cannot be told: auto, "+strings.Join(providerNames(), ", "))
	cmd.Flags().StringSliceVar(&cliVersions, "cli-version", nil, "CLI version for files whose stream and capture do not say: VERSION for all, or PROVIDER=VERSION (repeatable)")
	return cmd
}

// censusInput is one file to count; inTree is true for a file found by
// searching a directory, which is skipped rather than an error when no
// provider's output fits it.
type censusInput struct {
	name   string
	inTree bool
}

// censusExts are the names a directory search takes: raw output and
// captures (.jsonl, .ndjson) and raw opencode SSE (.sse.txt).
var censusExts = []string{".jsonl", ".ndjson", ".sse.txt"}

// censusInputs expands the arguments: a directory becomes the files under
// it with a census extension, in lexical order; anything else is taken as
// a file ("-" is standard input).
func censusInputs(args []string) ([]censusInput, error) {
	var out []censusInput
	for _, a := range args {
		st, err := os.Stat(a)
		if a == "-" || err != nil || !st.IsDir() {
			out = append(out, censusInput{name: a})
			continue
		}
		n := len(out)
		err = filepath.WalkDir(a, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.Type().IsRegular() && slices.ContainsFunc(censusExts, func(x string) bool { return strings.HasSuffix(d.Name(), x) }) {
				out = append(out, censusInput{name: p, inTree: true})
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("search %s: %w", a, err)
		}
		if len(out) == n {
			return nil, fmt.Errorf("%s: no %s files in this directory tree", a, strings.Join(censusExts, ", "))
		}
	}
	return out, nil
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

// censusReport is the whole census. Its JSON form is the --json output: the
// struct field order is the key order, and every list is sorted.
type censusReport struct {
	Groups []*censusGroup `json:"groups"`
	// UnknownTypes counts the distinct unknown types over all groups;
	// UnknownFields the distinct unknown (type, field) pairs.
	UnknownTypes  int `json:"unknownTypes"`
	UnknownFields int `json:"unknownFields"`
	// Skipped lists the files found in directories that no provider's
	// output fits (they are not counted).
	Skipped []string `json:"skipped,omitempty"`
}

// censusGroup is the count of one provider at one CLI version.
type censusGroup struct {
	Provider   string        `json:"provider"`
	CLIVersion string        `json:"cliVersion"`
	Files      []string      `json:"files"`
	Lines      int64         `json:"lines"`
	Types      []*censusType `json:"types"`
	byKey      map[typeKey]*censusType
}

// censusType is one native type with one disposition. A type normally has
// one disposition; when the normalizer judges lines of the same type
// differently (an opencode text part of the user's prompt is ignored, the
// model's is handled), each judgement gets its own row.
type censusType struct {
	NativeType    string            `json:"nativeType"`
	Disposition   event.Disposition `json:"disposition"`
	Reason        string            `json:"reason,omitempty"`
	Count         int64             `json:"count"`
	UnknownFields []*censusField    `json:"unknownFields,omitempty"`
	// FirstSeen is where an unknown type first occurred: FILE:LINE for raw
	// input, FILE@SEQUENCE for a capture.
	FirstSeen string `json:"firstSeen,omitempty"`
	byField   map[string]*censusField
}

// censusField is a field the normalizer has never seen for its type.
type censusField struct {
	Field     string `json:"field"`
	Count     int64  `json:"count"`
	FirstSeen string `json:"firstSeen"`
}

type typeKey struct {
	nativeType, reason string
	disposition        event.Disposition
}

type groupKey struct{ provider, version string }

// runCensus reads every input and builds the report. A file named on the
// command line that cannot be opened or whose provider cannot be told stops
// the census (exit 2): a report that silently skipped it would understate
// the drift. Files found in a directory that no provider fits are listed in
// Skipped instead.
func runCensus(ctx context.Context, s streams, inputs []censusInput, o censusOptions) (*censusReport, error) {
	groups := map[groupKey]*censusGroup{}
	var skipped []string
	for _, input := range inputs {
		g, version, err := censusFile(ctx, s, input.name, o)
		if errors.Is(err, errNoProvider) && input.inTree {
			skipped = append(skipped, input.name)
			continue
		}
		if err != nil {
			return nil, err
		}
		key := groupKey{g.Provider, version}
		into := groups[key]
		if into == nil {
			into = &censusGroup{Provider: g.Provider, CLIVersion: version, byKey: map[typeKey]*censusType{}}
			groups[key] = into
		}
		into.merge(g)
	}
	if len(groups) == 0 {
		return nil, &exitError{code: 2, err: fmt.Errorf("census: none of the %d file(s) is the output of an agent CLI evcap knows", len(inputs))}
	}

	rep := &censusReport{Groups: []*censusGroup{}, Skipped: skipped}
	for _, g := range groups {
		g.finish()
		rep.Groups = append(rep.Groups, g)
		for _, t := range g.Types {
			if t.Disposition == event.DispositionUnknown {
				rep.UnknownTypes++
			}
			rep.UnknownFields += len(t.UnknownFields)
		}
	}
	sort.Slice(rep.Groups, func(i, j int) bool {
		a, b := rep.Groups[i], rep.Groups[j]
		if a.Provider != b.Provider {
			return a.Provider < b.Provider
		}
		return a.CLIVersion < b.CLIVersion
	})
	return rep, nil
}

// censusFile counts one file. It feeds every line to the normalizer after
// classifying it, because classification can depend on what earlier lines
// established (opencode remembers which messages are the user's), and takes
// the CLI version from the first init event that carries one.
func censusFile(ctx context.Context, s streams, name string, o censusOptions) (*censusGroup, string, error) {
	in, err := openNative(s, name)
	if err != nil {
		return nil, "", &exitError{code: 2, err: err}
	}
	defer in.close()
	provider, err := in.chooseProvider(o.provider)
	if err != nil {
		return nil, "", &exitError{code: 2, err: noProviderError{err}}
	}
	n, err := newNormalizer(provider)
	if err != nil {
		return nil, "", &exitError{code: 2, err: err}
	}
	g := &censusGroup{Provider: provider, Files: []string{name}, byKey: map[typeKey]*censusType{}}
	streamVersion := ""
	noteVersion := func(evs []event.Event) {
		for _, e := range evs {
			if streamVersion == "" && e.Kind == event.KindInit && e.Version != "" {
				streamVersion = e.Version
			}
		}
	}
	for {
		if err := ctx.Err(); err != nil {
			return nil, "", err
		}
		ref, line, err := in.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, "", fmt.Errorf("read %s: %w", name, err)
		}
		g.Lines++
		g.add(n.Classify(line), 1, place{name, ref, in.isCapture})
		noteVersion(n.Line(ref, line))
	}
	noteVersion(n.End())

	version := "unknown"
	switch {
	case streamVersion != "":
		version = streamVersion
	case in.cliVersion != "":
		version = in.cliVersion
	case o.cliVersions[provider] != "":
		version = o.cliVersions[provider]
	case o.cliVersions[""] != "":
		version = o.cliVersions[""]
	}
	return g, version, nil
}

// errNoProvider marks a file whose provider could not be told.
var errNoProvider = errors.New("no provider")

// noProviderError is chooseProvider's error, marked as errNoProvider.
type noProviderError struct{ err error }

func (e noProviderError) Error() string   { return e.err.Error() }
func (e noProviderError) Unwrap() []error { return []error{e.err, errNoProvider} }

// place is where a line is: a line number in raw input, a sequence number
// in a capture. It is only formatted for unknown types and fields.
type place struct {
	name    string
	ref     int64
	capture bool
}

func (p place) String() string {
	if p.capture {
		return fmt.Sprintf("%s@%d", p.name, p.ref)
	}
	return fmt.Sprintf("%s:%d", p.name, p.ref)
}

// add counts count lines classified as c; where is the place of the first
// of them, kept for unknown types and fields.
func (g *censusGroup) add(c event.Classification, count int64, where place) {
	key := typeKey{c.NativeType, c.Reason, c.Disposition}
	t := g.byKey[key]
	if t == nil {
		t = &censusType{NativeType: c.NativeType, Disposition: c.Disposition, Reason: c.Reason,
			byField: map[string]*censusField{}}
		if c.Disposition == event.DispositionUnknown {
			t.FirstSeen = where.String()
		}
		g.byKey[key] = t
	}
	t.Count += count
	for _, f := range c.UnknownFields {
		cf := t.byField[f]
		if cf == nil {
			cf = &censusField{Field: f, FirstSeen: where.String()}
			t.byField[f] = cf
		}
		cf.Count += count
	}
}

// merge adds the counts of one file's group to g (files are merged in
// command-line order, so first-seen places stay the earliest).
func (g *censusGroup) merge(from *censusGroup) {
	g.Files = append(g.Files, from.Files...)
	g.Lines += from.Lines
	for _, t := range from.sortedTypes() {
		key := typeKey{t.NativeType, t.Reason, t.Disposition}
		into := g.byKey[key]
		if into == nil {
			into = &censusType{NativeType: t.NativeType, Disposition: t.Disposition, Reason: t.Reason,
				FirstSeen: t.FirstSeen, byField: map[string]*censusField{}}
			g.byKey[key] = into
		}
		into.Count += t.Count
		for _, f := range t.byField {
			cf := into.byField[f.Field]
			if cf == nil {
				cf = &censusField{Field: f.Field, FirstSeen: f.FirstSeen}
				into.byField[f.Field] = cf
			}
			cf.Count += f.Count
		}
	}
}

// finish fills the sorted lists from the maps.
func (g *censusGroup) finish() {
	g.Types = g.sortedTypes()
	for _, t := range g.Types {
		t.UnknownFields = nil
		for _, f := range t.byField {
			t.UnknownFields = append(t.UnknownFields, f)
		}
		sort.Slice(t.UnknownFields, func(i, j int) bool { return t.UnknownFields[i].Field < t.UnknownFields[j].Field })
	}
}

func (g *censusGroup) sortedTypes() []*censusType {
	ts := make([]*censusType, 0, len(g.byKey))
	for _, t := range g.byKey {
		ts = append(ts, t)
	}
	sort.Slice(ts, func(i, j int) bool {
		a, b := ts[i], ts[j]
		if a.NativeType != b.NativeType {
			return a.NativeType < b.NativeType
		}
		if a.Disposition != b.Disposition {
			return a.Disposition < b.Disposition
		}
		return a.Reason < b.Reason
	})
	return ts
}

// unknownList names every unknown type and field, one message each, in
// report order.
func (r *censusReport) unknownList() []string { return r.failures(failOnAll) }

// failures names the unknown types and fields that --fail-on-unknown=failOn
// fails on (none for ""), one message each, in report order.
func (r *censusReport) failures(failOn string) []string {
	types := failOn == failOnTypes || failOn == failOnAll
	fields := failOn == failOnFields || failOn == failOnAll
	var msgs []string
	for _, g := range r.Groups {
		for _, t := range g.Types {
			if types && t.Disposition == event.DispositionUnknown {
				msgs = append(msgs, fmt.Sprintf("%s %s: unknown type %s (%d, first at %s)",
					g.Provider, g.CLIVersion, escapeControls(t.NativeType), t.Count, t.FirstSeen))
			}
			if !fields {
				continue
			}
			for _, f := range t.UnknownFields {
				msgs = append(msgs, fmt.Sprintf("%s %s: unknown field %s of %s (%d, first at %s)",
					g.Provider, g.CLIVersion, escapeControls(f.Field), escapeControls(t.NativeType), f.Count, f.FirstSeen))
			}
		}
	}
	return msgs
}

// writeCensusTable prints one aligned table per provider and version, then
// a one-line total. Names from the input are escaped: a census of hostile
// input must not drive the terminal.
func writeCensusTable(w io.Writer, r *censusReport) {
	for i, g := range r.Groups {
		if i > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "%s %s: %d file(s), %d line(s)\n", g.Provider, g.CLIVersion, len(g.Files), g.Lines)
		var table bytes.Buffer
		tw := tabwriter.NewWriter(&table, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "  NATIVE TYPE\tCOUNT\tDISPOSITION\tUNKNOWN FIELDS\tREASON")
		for _, t := range g.Types {
			var fields []string
			for _, f := range t.UnknownFields {
				fields = append(fields, fmt.Sprintf("%s(%d)", escapeControls(f.Field), f.Count))
			}
			fmt.Fprintf(tw, "  %s\t%d\t%s\t%s\t%s\n", escapeControls(t.NativeType), t.Count, t.Disposition,
				strings.Join(fields, ","), t.Reason)
		}
		tw.Flush()
		// Empty last cells leave padding behind; drop it.
		for _, line := range strings.SplitAfter(table.String(), "\n") {
			io.WriteString(w, strings.TrimRight(line, " \n"))
			if strings.HasSuffix(line, "\n") {
				io.WriteString(w, "\n")
			}
		}
	}
	fmt.Fprintf(w, "\ncensus: %d group(s), %d unknown type(s), %d unknown field(s)\n",
		len(r.Groups), r.UnknownTypes, r.UnknownFields)
}
