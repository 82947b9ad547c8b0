package envelope

// This file keeps the record reader and Validate as they were before the
// one-pass scanner (scan.go): gjson.ValidBytes over the line, then
// ParseRecord's gjson walk, which is still the package's own general path
// (parseRecordSlow, unchanged, so it is called rather than copied). The
// differential tests and FuzzScanMatchesOld compare the two.

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/evcap/evcap/internal/lines"
	"github.com/tidwall/gjson"
)

// oldReader is Reader as it was: every line through oldParse.
type oldReader struct {
	lr   *lines.Reader
	name string
	opts ReaderOptions
	done bool
}

func newOldReader(r io.Reader, name string, opts ReaderOptions) *oldReader {
	return &oldReader{lr: lines.NewReader(r), name: name, opts: opts}
}

func (r *oldReader) Next() (*Record, error) {
	if r.done {
		return nil, io.EOF
	}
	for {
		line, err := r.lr.Next()
		if errors.Is(err, lines.ErrTorn) {
			r.done = true
			le := &LineError{File: r.name, Line: r.lr.Line(), Err: ErrTornLine}
			if seq := gjson.GetBytes(line, "sequence"); seq.Type == gjson.Number {
				le.Sequence = seq.Int()
			}
			return nil, le
		}
		if err != nil {
			if err == io.EOF {
				r.done = true
				return nil, io.EOF
			}
			return nil, fmt.Errorf("%s: read: %w", r.name, err)
		}
		if len(line) == 0 || (len(line) == 1 && line[0] == '\r') {
			continue
		}
		rec, err := oldParse(r.opts, line)
		if err != nil {
			le := &LineError{File: r.name, Line: r.lr.Line(), Err: err}
			if seq := gjson.GetBytes(line, "sequence"); seq.Type == gjson.Number {
				le.Sequence = seq.Int()
			}
			return nil, le
		}
		return rec, nil
	}
}

func oldParse(opts ReaderOptions, line []byte) (*Record, error) {
	if !gjson.ValidBytes(line) {
		return nil, fmt.Errorf("%w: not JSON", ErrInvalidLine)
	}
	v := gjson.GetBytes(line, "schemaVersion")
	if v.Type != gjson.Number {
		return nil, fmt.Errorf("%w: schemaVersion missing or not a number", ErrInvalidLine)
	}
	version := int(v.Int())
	for version != SchemaVersion {
		up, ok := opts.Upgrades[version]
		if !ok || version > SchemaVersion {
			return nil, fmt.Errorf("%w %d (this evcap reads %d)", ErrUnsupportedVersion, version, SchemaVersion)
		}
		next, err := up(line)
		if err != nil {
			return nil, fmt.Errorf("upgrade from schemaVersion %d: %w", version, err)
		}
		line = next
		nv := int(gjson.GetBytes(line, "schemaVersion").Int())
		if nv != version+1 {
			return nil, fmt.Errorf("upgrade from schemaVersion %d produced version %d", version, nv)
		}
		version = nv
	}
	return parseRecordSlow(line)
}

// oldValidate is Validate as it was, for the differential tests.
func oldValidate(ctx context.Context, r io.Reader, o ValidateOptions) (*Validation, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	v := &Validation{Stages: map[Stage]int{}}
	report := func(line, seq int64, format string, args ...any) {
		v.Problems = append(v.Problems, Problem{Line: line, Sequence: seq, Message: fmt.Sprintf(format, args...)})
	}
	lr := lines.NewReader(r)
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
		if !gjson.ValidBytes(line) {
			report(n, 0, "not JSON")
			continue
		}
		seq := int64(0)
		if x := gjson.GetBytes(line, "sequence"); x.Type == gjson.Number {
			seq = x.Int()
		}
		if x := gjson.GetBytes(line, "schemaVersion"); x.Type == gjson.Number && x.Int() != SchemaVersion {
			report(n, seq, "unknown schemaVersion %s (this evcap reads %d)", x.Raw, SchemaVersion)
			continue
		}
		if o.Schema != nil {
			if err := o.Schema(line); err != nil {
				report(n, seq, "schema: %v", err)
				continue
			}
		}
		rec, err := parseRecordSlow(line)
		if err != nil {
			report(n, seq, "%v", err)
			continue
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
