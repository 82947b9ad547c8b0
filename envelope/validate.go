package envelope

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/evcap/evcap/internal/lines"
	"github.com/tidwall/gjson"
)

// This file is the one home of a capture's validity rules: what makes a
// stream of envelope lines a well-formed capture beyond each record
// parsing on its own (ParseRecord). evcap validate reports every broken
// rule; other readers (replay, play, fixtures) need only the order rule
// and call CheckOrder.

// Problem is one broken rule: where (Line, 1-based; Sequence when the
// record has one, else 0) and what.
type Problem struct {
	Line     int64  `json:"line"`
	Sequence int64  `json:"sequence"`
	Message  string `json:"message"`
}

// Validation is the verdict on one capture stream.
type Validation struct {
	// Records counts the lines that parsed as records.
	Records int
	// Stages counts those records by stage.
	Stages map[Stage]int
	// Problems are the broken rules in line order; none means valid.
	Problems []Problem
	// Lines is how many lines were read.
	Lines int64
}

// ValidateOptions tune Validate.
type ValidateOptions struct {
	// Schema, when set, checks each JSON line against the envelope's JSON
	// schema (package schema); its error becomes a "schema: ..." problem.
	// It is injected so that this package stays below schema.
	Schema func(line []byte) error
}

// ErrUnordered is wrapped by CheckOrder's error: a record whose sequence
// does not follow the previous one.
var ErrUnordered = errors.New("sequence not after the previous record's")

// CheckOrder is the order rule every reader of a capture relies on:
// sequences strictly increase through a file. prev is the previous
// record's sequence (0 before the first).
func CheckOrder(prev, seq int64) error {
	if prev != 0 && seq <= prev {
		return fmt.Errorf("%w: sequence %d after %d", ErrUnordered, seq, prev)
	}
	return nil
}

// Validate reads a capture line by line, once, and reports every problem:
// lines that are not JSON, an unknown schemaVersion, records that break
// the schema (o.Schema) or do not parse, a first sequence other than 1,
// duplicate, backward or missing sequence numbers, a captureId that
// changes mid-file, causes that do not point to an earlier record, a torn
// last line, and an empty capture. The error is only for what stops the
// check: reading fails or ctx is done.
func Validate(ctx context.Context, r io.Reader, o ValidateOptions) (*Validation, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	v := &Validation{Stages: map[Stage]int{}}
	report := func(line, seq int64, format string, args ...any) {
		v.Problems = append(v.Problems, Problem{Line: line, Sequence: seq, Message: fmt.Sprintf(format, args...)})
	}
	lr := newLineSource(r)
	var (
		scan    lineScanner
		scratch Record
	)
	var prev int64
	var captureID string
	for {
		if err := context.Cause(ctx); err != nil {
			return nil, err
		}
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
			v.Lines = n
			return nil, err
		}
		rec, seq, ok := &scratch, int64(0), false
		if scan.scanRecord(line, rec, true) && rec.SchemaVersion == SchemaVersion {
			// One pass read it (see scan.go); only the schema is left.
			seq, ok = rec.Sequence, true
		} else {
			if !gjson.ValidBytes(line) {
				report(n, 0, "not JSON")
				continue
			}
			if x := gjson.GetBytes(line, "sequence"); x.Type == gjson.Number {
				seq = x.Int()
			}
			if x := gjson.GetBytes(line, "schemaVersion"); x.Type == gjson.Number && x.Int() != SchemaVersion {
				report(n, seq, "unknown schemaVersion %s (this evcap reads %d)", x.Raw, SchemaVersion)
				continue
			}
		}
		if o.Schema != nil {
			if err := o.Schema(line); err != nil {
				report(n, seq, "schema: %v", err)
				continue
			}
		}
		if !ok {
			var err error
			if rec, err = parseRecordSlow(line); err != nil {
				report(n, seq, "%v", err)
				continue
			}
		}
		v.Records++
		v.Stages[rec.Stage]++
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
	if v.Records == 0 && len(v.Problems) == 0 {
		report(0, 0, "empty capture")
	}
	v.Lines = lr.Line()
	return v, nil
}
