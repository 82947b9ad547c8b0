package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/evcap/evcap/envelope"
	"github.com/evcap/evcap/internal/lines"
	"github.com/evcap/evcap/schema"
	"github.com/spf13/cobra"
	"github.com/tidwall/gjson"
)

func newValidateCmd(s streams) *cobra.Command {
	var quiet bool
	cmd := &cobra.Command{
		Use:   "validate FILE...",
		Short: "Check captures against the envelope schema and the sequence rules",
		Long: `validate reads each capture line by line and reports every problem as
FILE:LINE: sequence N: reason — lines that are not JSON, records that break
the envelope schema, an unknown schemaVersion, sequence gaps, duplicate or
out-of-order sequence numbers, a captureId that changes mid-file, causes that
point forward, and a torn last line. It exits 1 when anything is wrong.`,
		Example: `  evcap validate capture.jsonl
  evcap validate evcap-captures/*.jsonl
  cat capture.jsonl | evcap validate -`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			sch, err := schema.Compile(schema.EnvelopeFile)
			if err != nil {
				return err
			}
			bad := 0
			for _, name := range args {
				n, err := validateFile(s, sch, name, quiet)
				if err != nil {
					return err
				}
				bad += n
			}
			if bad > 0 {
				return &exitError{code: 1, err: fmt.Errorf("%d problem(s) found", bad)}
			}
			return nil
		},
	}
	cmd.Flags().BoolVarP(&quiet, "quiet", "q", false, "print problems only, not the per-file summary")
	return cmd
}

// openInput opens a named file, or standard input for "-".
func openInput(s streams, name string) (io.Reader, func(), error) {
	if name == "-" {
		return s.in, func() {}, nil
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, nil, err
	}
	return f, func() { f.Close() }, nil
}

// validateFile prints one line per problem in name and returns how many
// there were. It reads the file once, streaming.
func validateFile(s streams, sch *schema.Schema, name string, quiet bool) (int, error) {
	r, done, err := openInput(s, name)
	if err != nil {
		return 0, err
	}
	defer done()
	problems := 0
	report := func(line, seq int64, format string, args ...any) {
		problems++
		msg := fmt.Sprintf(format, args...)
		if seq > 0 {
			fmt.Fprintf(s.out, "%s:%d: sequence %d: %s\n", name, line, seq, msg)
		} else {
			fmt.Fprintf(s.out, "%s:%d: %s\n", name, line, msg)
		}
	}
	lr := lines.NewReader(r)
	var prev int64
	var captureID string
	records := 0
	stages := map[envelope.Stage]int{}
	for {
		line, err := lr.Next()
		if err == io.EOF {
			break
		}
		n := lr.Line()
		if errors.Is(err, lines.ErrTorn) {
			report(n, gjson.GetBytes(line, "sequence").Int(), "torn last line: no newline at end of file (the writer was probably killed)")
			break
		}
		if err != nil {
			return problems, fmt.Errorf("%s: %w", name, err)
		}
		if !gjson.ValidBytes(line) {
			report(n, 0, "not JSON")
			continue
		}
		seq := int64(0)
		if v := gjson.GetBytes(line, "sequence"); v.Type == gjson.Number {
			seq = v.Int()
		}
		if v := gjson.GetBytes(line, "schemaVersion"); v.Type == gjson.Number && v.Int() != envelope.SchemaVersion {
			report(n, seq, "unknown schemaVersion %s (this evcap reads %d)", v.Raw, envelope.SchemaVersion)
			continue
		}
		if err := sch.Validate(line); err != nil {
			report(n, seq, "schema: %v", err)
			continue
		}
		rec, err := envelope.ParseRecord(line)
		if err != nil {
			report(n, seq, "%v", err)
			continue
		}
		records++
		stages[rec.Stage]++
		switch {
		case prev == 0 && rec.Sequence != 1:
			report(n, seq, "first sequence is %d, want 1", rec.Sequence)
		case prev != 0 && rec.Sequence == prev:
			report(n, seq, "duplicate sequence %d", rec.Sequence)
		case prev != 0 && rec.Sequence < prev:
			report(n, seq, "sequence goes backwards (previous %d)", prev)
		case prev != 0 && rec.Sequence > prev+1:
			report(n, seq, "sequence gap: %d follows %d (%d missing)", rec.Sequence, prev, rec.Sequence-prev-1)
		}
		if rec.Sequence > prev {
			prev = rec.Sequence
		}
		if captureID == "" {
			captureID = rec.CaptureID
		} else if rec.CaptureID != captureID {
			report(n, seq, "captureId %q differs from %q earlier in the file", rec.CaptureID, captureID)
		}
		for _, c := range rec.Cause {
			if c >= rec.Sequence {
				report(n, seq, "cause %d does not point to an earlier record", c)
			}
		}
	}
	if records == 0 && problems == 0 {
		report(0, 0, "empty capture")
	}
	if !quiet && problems == 0 {
		fmt.Fprintf(s.out, "%s: ok, %d records (%s)\n", name, records, stageSummary(stages))
	}
	return problems, nil
}

func stageSummary(m map[envelope.Stage]int) string {
	out := ""
	for _, st := range envelope.Stages {
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
