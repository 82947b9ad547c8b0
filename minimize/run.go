package minimize

import (
	"context"

	"github.com/evcap/evcap/envelope"
	"github.com/evcap/evcap/fixtures"
)

// Predicate reports whether a (reduced) run still fails the way the whole
// run did. An error stops the reduction.
type Predicate func(ctx context.Context, fx *fixtures.Fixture) (bool, error)

// Counts describe the size of a run.
type Counts struct {
	NativeLines int `json:"nativeLines"`
	Events      int `json:"events"`
}

// CountsOf counts the native lines and all events of fx.
func CountsOf(fx *fixtures.Fixture) Counts {
	return Counts{NativeLines: len(fx.Stage(envelope.StageNativeIn)), Events: len(fx.Events)}
}

// Result is a reduction's outcome.
type Result struct {
	Fixture *fixtures.Fixture
	// Kept are the sequence numbers of the native lines kept.
	Kept          []int64
	Before, After Counts
	Stats         Stats
}

// Fixture reduces fx to a 1-minimal set of native lines for which fails
// still holds (see DDMin), with the records derived from them (Subset).
func Fixture(ctx context.Context, fx *fixtures.Fixture, fails Predicate) (*Result, error) {
	var units []int64
	for _, e := range fx.Events {
		if e.Stage == envelope.StageNativeIn {
			units = append(units, e.Sequence)
		}
	}
	kept, st, err := DDMin(ctx, units, func(ctx context.Context, keep []int64) (bool, error) {
		return fails(ctx, Subset(fx, keep))
	})
	if err != nil {
		return nil, err
	}
	out := Subset(fx, kept)
	return &Result{Fixture: out, Kept: kept, Before: CountsOf(fx), After: CountsOf(out), Stats: st}, nil
}

// Subset keeps the native_in records listed in keep and the records
// derived only from them; records without a cause always stay.
func Subset(fx *fixtures.Fixture, keep []int64) *fixtures.Fixture {
	set := make(map[int64]bool, len(keep))
	for _, k := range keep {
		set[k] = true
	}
	out := *fx
	out.Events = nil
	for _, e := range fx.Events {
		if e.Stage == envelope.StageNativeIn {
			if set[e.Sequence] {
				out.Events = append(out.Events, e)
			}
			continue
		}
		if allIn(e.Cause, set) {
			out.Events = append(out.Events, e)
		}
	}
	return &out
}

func allIn(cause []int64, set map[int64]bool) bool {
	for _, c := range cause {
		if !set[c] {
			return false
		}
	}
	return true
}

// SubsetRecords is Subset for the records of a capture: the native_in
// records in keep, the records derived only from them and every record
// without a cause (meta records among them), renumbered 1, 2, 3 … with
// their causes renumbered alike, so the result is a valid capture.
// The records are copies; recs is not changed.
func SubsetRecords(recs []*envelope.Record, keep []int64) []*envelope.Record {
	set := make(map[int64]bool, len(keep))
	for _, k := range keep {
		set[k] = true
	}
	renum := map[int64]int64{}
	var out []*envelope.Record
	for _, r := range recs {
		if r.Stage == envelope.StageNativeIn && !set[r.Sequence] {
			continue
		}
		if r.Stage != envelope.StageNativeIn && !allIn(r.Cause, set) {
			continue
		}
		c := r.Clone()
		c.Sequence = int64(len(out) + 1)
		renum[r.Sequence] = c.Sequence
		for i, x := range c.Cause {
			c.Cause[i] = renum[x]
		}
		out = append(out, c)
	}
	return out
}
