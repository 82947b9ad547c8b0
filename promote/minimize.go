package promote

import (
	"errors"
	"fmt"

	"github.com/evcap/evcap/envelope"
	"github.com/evcap/evcap/fixtures"
	"github.com/evcap/evcap/replay"
)

// ErrNoFailure is returned by Minimize when the whole fixture does not
// fail to begin with: there is nothing to reproduce.
var ErrNoFailure = errors.New("the fixture does not fail; nothing to minimize")

// Minimize shrinks fx by delta debugging (ddmin) to a smallest set of
// native lines for which fails still reports the failure; records derived
// from native lines (normalized_out, legacy_out) stay exactly when all their
// causes stay. It returns the minimized fixture and the number of events
// removed. fails must be deterministic.
func Minimize(fx *fixtures.Fixture, fails func(*fixtures.Fixture) bool) (*fixtures.Fixture, int, error) {
	if !fails(fx) {
		return nil, 0, ErrNoFailure
	}
	var units []int64
	for _, e := range fx.Events {
		if e.Stage == envelope.StageNativeIn {
			units = append(units, e.Sequence)
		}
	}
	test := func(keep []int64) bool { return fails(Subset(fx, keep)) }
	n := 2
	for len(units) >= 2 {
		chunks := splitN(units, n)
		reduced := false
		for _, c := range chunks {
			if test(c) {
				units, n, reduced = c, 2, true
				break
			}
		}
		if !reduced && n > 2 {
			for i := range chunks {
				comp := complement(chunks, i)
				if test(comp) {
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
	if len(units) == 1 && test(nil) {
		units = nil
	}
	out := Subset(fx, units)
	return out, len(fx.Events) - len(out.Events), nil
}

// Subset keeps the native_in records listed in keep and the records
// derived only from them (records without a cause always stay).
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
		all := true
		for _, c := range e.Cause {
			all = all && set[c]
		}
		if all {
			out.Events = append(out.Events, e)
		}
	}
	return &out
}

func splitN(units []int64, n int) [][]int64 {
	var out [][]int64
	for i := 0; i < n; i++ {
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

// FailsLike replays fx with opts and returns a predicate that is true for a
// fixture whose replay fails the same way: a mismatch whose first
// divergence comes from the same native line (or, when no native line is
// named, has the same stage and event type) with the same expected and
// the same wrong output line. Without the lines, a subset that fails for
// another reason (a block whose start was cut away) would count as a
// reproduction. It also returns the original mismatch, for the report.
func FailsLike(fx *fixtures.Fixture, opts replay.Options) (func(*fixtures.Fixture) bool, *replay.Mismatch, error) {
	want, err := mismatch(fx, opts)
	if err != nil {
		return nil, nil, err
	}
	if want == nil {
		return nil, nil, ErrNoFailure
	}
	return func(sub *fixtures.Fixture) bool {
		got, err := mismatch(sub, opts)
		return err == nil && got != nil && signature(got) == signature(want)
	}, want, nil
}

func mismatch(fx *fixtures.Fixture, opts replay.Options) (*replay.Mismatch, error) {
	err := replay.Run(fx, opts)
	var m *replay.Mismatch
	if errors.As(err, &m) {
		return m, nil
	}
	return nil, err
}

func signature(m *replay.Mismatch) string {
	where := fmt.Sprintf("%s %s", m.Stage, m.EventType)
	if n := len(m.Native); n > 0 {
		where = fmt.Sprintf("native %d", m.Native[n-1].Sequence)
	}
	return where + "\x00" + m.Want + "\x00" + m.Got
}
