package minimize

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
)

// ErrNoFailure is returned when the whole run does not fail to begin with:
// there is nothing to reproduce.
var ErrNoFailure = errors.New("the whole run does not fail; nothing to minimize")

// Stats say what a reduction did.
type Stats struct {
	// Tests is how many subsets were tried (cached repeats not counted).
	Tests int
}

// DDMin returns a 1-minimal subset of units for which test holds: removing
// any single unit of it makes test false. test must hold for units itself
// (else ErrNoFailure) and be deterministic; it is called with subsets in
// the order of units and never twice with the same subset. ctx is checked
// before each test.
func DDMin(ctx context.Context, units []int64, test func(context.Context, []int64) (bool, error)) ([]int64, Stats, error) {
	var st Stats
	seen := map[string]bool{}
	try := func(keep []int64) (bool, error) {
		if err := ctx.Err(); err != nil {
			return false, err
		}
		k := key(keep)
		if v, ok := seen[k]; ok {
			return v, nil
		}
		st.Tests++
		v, err := test(ctx, keep)
		if err != nil {
			return false, err
		}
		seen[k] = v
		return v, nil
	}
	ok, err := try(units)
	if err != nil {
		return nil, st, err
	}
	if !ok {
		return nil, st, ErrNoFailure
	}
	units = slices.Clone(units)
	n := 2
	for len(units) >= 2 {
		chunks := split(units, n)
		reduced := false
		for _, c := range chunks {
			if ok, err := try(c); err != nil {
				return nil, st, err
			} else if ok {
				units, n, reduced = c, 2, true
				break
			}
		}
		if !reduced && len(chunks) > 2 {
			for i := range chunks {
				comp := complement(chunks, i)
				if ok, err := try(comp); err != nil {
					return nil, st, err
				} else if ok {
					units, n, reduced = comp, max(n-1, 2), true
					break
				}
			}
		}
		if !reduced {
			if n >= len(units) {
				break
			}
			n = min(2*n, len(units))
		}
	}
	if len(units) == 1 {
		if ok, err := try(nil); err != nil {
			return nil, st, err
		} else if ok {
			units = nil
		}
	}
	return units, st, nil
}

func split(units []int64, n int) [][]int64 {
	var out [][]int64
	for i := range n {
		lo, hi := i*len(units)/n, (i+1)*len(units)/n
		if hi > lo {
			out = append(out, units[lo:hi])
		}
	}
	return out
}

func complement(chunks [][]int64, skip int) []int64 {
	var out []int64
	for i, c := range chunks {
		if i != skip {
			out = append(out, c...)
		}
	}
	return out
}

func key(units []int64) string {
	var b strings.Builder
	for _, u := range units {
		b.WriteString(strconv.FormatInt(u, 36))
		b.WriteByte(',')
	}
	return b.String()
}
