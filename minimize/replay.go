package minimize

import (
	"context"
	"errors"
	"fmt"

	"github.com/evcap/evcap/fixtures"
	"github.com/evcap/evcap/replay"
)

// ReplayFails replays fx with opts and returns a predicate that holds for
// a run whose replay fails the same way: a mismatch whose first divergence
// comes from the same native line (or, when no native line is named, has
// the same stage and event type) with the same expected and the same
// wrong output line. Without the lines, a subset that fails for another
// reason (a block whose start was cut away) would count as a
// reproduction. It also returns the original mismatch, for the report,
// and ErrNoFailure when fx replays cleanly.
func ReplayFails(fx *fixtures.Fixture, opts replay.Options) (Predicate, *replay.Mismatch, error) {
	want, err := mismatch(fx, opts)
	if err != nil {
		return nil, nil, err
	}
	if want == nil {
		return nil, nil, ErrNoFailure
	}
	return func(_ context.Context, sub *fixtures.Fixture) (bool, error) {
		got, err := mismatch(sub, opts)
		return err == nil && got != nil && signature(got) == signature(want), nil
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
