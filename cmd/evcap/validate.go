package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/evcap/evcap/envelope"
	"github.com/evcap/evcap/schema"
	"github.com/evcap/evcap/source"
	"github.com/spf13/cobra"
)

func newValidateCmd(s streams) *cobra.Command {
	var quiet, asJSON bool
	cmd := &cobra.Command{
		Use:   "validate FILE...",
		Short: "Check captures and fixtures against their schemas and the sequence rules",
		Long: `validate reads each capture line by line and reports every problem as
FILE:LINE: sequence N: reason — lines that are not JSON, records that break
the envelope schema, an unknown schemaVersion, sequence gaps, duplicate or
out-of-order sequence numbers, a captureId that changes mid-file, causes that
point forward, and a torn last line. It exits 1 when anything is wrong.

A fixture (its directory or fixture.json) is checked against the fixture
schema and its own rules (sequences increase, causes point at earlier
native_in records). "-" reads standard input.

--json prints one JSON object per input instead, for scripts:
  {"file","kind","ok","records","stages":{stage:count},
   "problems":[{"line","sequence","message"}]}
(line and sequence are 0 when they do not apply).`,
		Example: `  evcap validate capture.jsonl
  evcap validate evcap-captures/*.jsonl fixtures/testdata/claude/tools
  cat capture.jsonl | evcap validate -
  evcap validate --json capture.jsonl | jq '.problems[].message'`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			sch, err := schema.Compile(schema.EnvelopeFile)
			if err != nil {
				return err
			}
			bad := 0
			for _, name := range args {
				res, err := validateInput(s, sch, name)
				if err != nil {
					return &exitError{code: 2, err: err}
				}
				if asJSON {
					err = res.writeJSON(s.out)
				} else {
					err = res.writeText(s.out, quiet)
				}
				if err != nil {
					return err
				}
				bad += len(res.Problems)
			}
			if bad > 0 {
				return &exitError{code: 1, err: fmt.Errorf("%d problem(s) found", bad)}
			}
			return nil
		},
	}
	cmd.Flags().BoolVarP(&quiet, "quiet", "q", false, "print problems only, not the per-file summary")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print one JSON object per input (see above)")
	return cmd
}

// validation is the verdict on one input.
type validation struct {
	File     string             `json:"file"`
	Kind     string             `json:"kind"`
	OK       bool               `json:"ok"`
	Records  int                `json:"records"`
	Stages   map[string]int     `json:"stages"`
	Problems []envelope.Problem `json:"problems"`
	stages   map[envelope.Stage]int
}

func (v *validation) report(line, seq int64, format string, args ...any) {
	v.Problems = append(v.Problems, envelope.Problem{Line: line, Sequence: seq, Message: fmt.Sprintf(format, args...)})
}

func (v *validation) writeText(w io.Writer, quiet bool) error {
	for _, p := range v.Problems {
		var err error
		switch {
		case p.Line == 0 && p.Sequence == 0 && v.Kind == "fixture":
			_, err = fmt.Fprintf(w, "%s: %s\n", v.File, p.Message)
		case p.Sequence > 0:
			_, err = fmt.Fprintf(w, "%s:%d: sequence %d: %s\n", v.File, p.Line, p.Sequence, p.Message)
		default:
			_, err = fmt.Fprintf(w, "%s:%d: %s\n", v.File, p.Line, p.Message)
		}
		if err != nil {
			return err
		}
	}
	if quiet || !v.OK {
		return nil
	}
	what := "records"
	if v.Kind == "fixture" {
		what = "events (fixture)"
	}
	_, err := fmt.Fprintf(w, "%s: ok, %d %s (%s)\n", v.File, v.Records, what, stageSummary(v.stages))
	return err
}

func (v *validation) writeJSON(w io.Writer) error {
	v.Stages = map[string]int{}
	for st, n := range v.stages {
		v.Stages[string(st)] = n
	}
	if v.Problems == nil {
		v.Problems = []envelope.Problem{}
	}
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// validateInput checks one input, streaming a capture once. Problems with
// the input are in the result; the error is for what stops the check
// (the input cannot be opened or read).
func validateInput(s streams, sch *schema.Schema, name string) (*validation, error) {
	v := &validation{File: name, stages: map[envelope.Stage]int{}}
	in, err := source.OpenContext(s.context(), name, s.in)
	if errors.Is(err, source.ErrInvalidFixture) {
		v.Kind = "fixture"
		v.report(0, 0, "%v", err)
		return v, nil
	}
	if err != nil {
		return nil, err
	}
	defer in.Close()
	v.Kind = "capture"
	if in.Kind == source.KindFixture {
		// Open checked the fixture against its schema and rules.
		v.Kind = "fixture"
		for _, e := range in.Fixture.Events {
			v.stages[e.Stage]++
		}
		v.Records = len(in.Fixture.Events)
		v.OK = true
		return v, nil
	}
	res, err := envelope.Validate(s.ctx, withContext(s.ctx, in.Reader()), envelope.ValidateOptions{Schema: sch.Validate})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	v.Records, v.stages, v.Problems = res.Records, res.Stages, res.Problems
	if in.Kind == source.KindRaw && res.Lines > 0 {
		v.report(0, 0, "this looks like raw agent CLI output, not a capture (evcap normalize reads it; evcap record makes a capture)")
	}
	v.OK = len(v.Problems) == 0
	return v, nil
}

// openInput opens a capture, a fixture (its directory or fixture.json),
// raw agent CLI output, or standard input for "-", once, with package
// source. A fixture reads as the capture records it holds.
func openInput(s streams, name string) (io.Reader, func(), error) {
	r, _, done, err := openSource(s, name)
	return r, done, err
}

// openSource is openInput that also returns the opened source.Input (for
// what it says about the input, such as Live).
func openSource(s streams, name string) (io.Reader, *source.Input, func(), error) {
	in, err := source.OpenContext(s.context(), name, s.in)
	if err != nil {
		return nil, nil, nil, err
	}
	// The commands that read through openInput print to standard output
	// (view too, with -o -).
	r, finish := withProgress(in.Reader(), progressTo(s, true), in.Path)
	return withContext(s.ctx, r), in, func() { finish(); in.Close() }, nil
}

func stageSummary(m map[envelope.Stage]int) string {
	out := ""
	for _, st := range envelope.Stages() {
		if m[st] == 0 {
			continue
		}
		if out != "" {
			out += ", "
		}
		out += fmt.Sprintf("%s %d", st, m[st])
	}
	return out
}
