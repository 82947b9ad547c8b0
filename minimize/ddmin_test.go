package minimize

import (
	"context"
	"errors"
	"slices"
	"testing"
)

func seqs(n int) []int64 {
	out := make([]int64, n)
	for i := range out {
		out[i] = int64(i + 1)
	}
	return out
}

func TestDDMin(t *testing.T) {
	cases := []struct {
		reason string
		units  []int64
		needs  []int64 // the test holds when all of these are kept
		want   []int64
	}{
		{"one culprit among 600", seqs(600), []int64{317}, []int64{317}},
		{"two culprits far apart", seqs(600), []int64{5, 598}, []int64{5, 598}},
		{"three adjacent", seqs(100), []int64{40, 41, 42}, []int64{40, 41, 42}},
		{"the empty set fails too", seqs(10), nil, nil},
	}
	for _, c := range cases {
		calls := map[string]int{}
		got, st, err := DDMin(context.Background(), c.units, func(_ context.Context, keep []int64) (bool, error) {
			calls[key(keep)]++
			for _, n := range c.needs {
				if !slices.Contains(keep, n) {
					return false, nil
				}
			}
			return true, nil
		})
		if err != nil {
			t.Errorf("%s: %v", c.reason, err)
			continue
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: DDMin = %v, want %v", c.reason, got, c.want)
		}
		for k, n := range calls {
			if n > 1 {
				t.Errorf("%s: subset %q tested %d times", c.reason, k, n)
			}
		}
		if st.Tests != len(calls) {
			t.Errorf("%s: Stats.Tests = %d, but %d subsets were tested", c.reason, st.Tests, len(calls))
		}
		t.Logf("%s: %d tests", c.reason, st.Tests)
	}
}

func TestDDMinNoFailure(t *testing.T) {
	_, _, err := DDMin(context.Background(), seqs(5), func(context.Context, []int64) (bool, error) { return false, nil })
	if !errors.Is(err, ErrNoFailure) {
		t.Errorf("DDMin on a set that does not fail: %v, want ErrNoFailure", err)
	}
}

func TestDDMinStopsWithContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	n := 0
	_, _, err := DDMin(ctx, seqs(600), func(context.Context, []int64) (bool, error) {
		if n++; n == 3 {
			cancel()
		}
		return true, nil
	})
	if !errors.Is(err, context.Canceled) || n != 3 {
		t.Errorf("after cancel: err %v after %d tests, want context.Canceled after 3", err, n)
	}
}
