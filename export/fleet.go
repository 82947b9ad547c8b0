package export

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"

	"github.com/evcap/evcap/source"
)

// FleetOptions configure an export of many captures.
type FleetOptions struct {
	Options
	// Workers is how many captures are read at once (default 4).
	Workers int
	// Ledger, when set, skips captures it has seen and learns the ones
	// sent.
	Ledger *Ledger
	// Stdin is what the path "-" reads (nil: "-" is an error).
	Stdin io.Reader
	// Progress, when set, is called after each capture (from the worker
	// that finished it) with the running totals.
	Progress func(FleetResult)
}

// FleetResult counts what a fleet export did.
type FleetResult struct {
	Captures int64 // exported
	Skipped  int64 // already in the ledger
	Failed   int64 // could not be read
	Spans    int64
	// Errors holds the first errors met (at most 20), each naming its file.
	Errors []error
}

const maxFleetErrors = 20

// Fleet exports every capture found under paths (see Walk) to send. A
// capture that cannot be read is counted and reported, and the others go
// on. Each capture's spans are collected before they are sent, so a
// capture that fails half-way sends nothing and memory is bounded by the
// largest capture's span count, times Workers.
func Fleet(ctx context.Context, paths []string, send func(context.Context, *Span), opts FleetOptions) (FleetResult, error) {
	workers := opts.Workers
	if workers <= 0 {
		workers = 4
	}
	var (
		mu                 sync.Mutex
		res                FleetResult
		done, skip, failed atomic.Int64
		spans              atomic.Int64
	)
	report := func() {
		if opts.Progress == nil {
			return
		}
		opts.Progress(FleetResult{Captures: done.Load(), Skipped: skip.Load(), Failed: failed.Load(), Spans: spans.Load()})
	}
	fail := func(err error) {
		failed.Add(1)
		mu.Lock()
		if len(res.Errors) < maxFleetErrors {
			res.Errors = append(res.Errors, err)
		}
		mu.Unlock()
	}
	err := Walk(ctx, paths, workers, func(ctx context.Context, path string) {
		defer report()
		in, err := source.OpenContext(ctx, path, opts.Stdin)
		if err != nil {
			if ctx.Err() == nil {
				fail(err)
			}
			return
		}
		defer in.Close()
		if in.Kind == source.KindRaw {
			fail(fmt.Errorf("%s: %w", path, ErrNotCapture))
			return
		}
		var got []*Span
		o := opts.Options
		o.File = path
		sum, err := Capture(ctx, in.Reader(), path, o, func(s *Span) { got = append(got, s) })
		if err != nil {
			// A read that the end of ctx cut short is no failure of the
			// capture: the fleet stops.
			if !errors.Is(err, context.Canceled) && ctx.Err() == nil {
				fail(err)
			}
			return
		}
		if opts.Ledger != nil && opts.Ledger.Has(sum.TraceID.String(), sum.LastSeq) {
			skip.Add(1)
			return
		}
		for _, s := range got {
			send(ctx, s)
		}
		spans.Add(int64(len(got)))
		done.Add(1)
		if opts.Ledger != nil {
			opts.Ledger.Add(sum.TraceID.String(), sum.LastSeq)
		}
	})
	res.Captures, res.Skipped, res.Failed, res.Spans = done.Load(), skip.Load(), failed.Load(), spans.Load()
	return res, err
}

// ErrNotCapture: the input is raw agent CLI output, not a capture; record
// or import it first.
var ErrNotCapture = errors.New("raw agent CLI output, not a capture (make one with evcap record --stdin or evcap import)")
