package replaytest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"testing"

	"github.com/evcap/evcap/fixtures"
	"github.com/evcap/evcap/replay"
)

// LineNormalizer is a normalizer of your own: it reads one native line at
// a time and returns events of your own type E. If it also has a method
// End() ([]E, error), that is called after the last line for what it
// still holds.
type LineNormalizer[E any] interface {
	Line(line []byte) ([]E, error)
}

type ender[E any] interface{ End() ([]E, error) }

// CheckEvents is Events without a testing.TB (opts.Golden must be set).
func CheckEvents[E any](ctx context.Context, dir string, mk func() LineNormalizer[E], opts StreamOptions) (*Report, error) {
	fx, err := fixtures.Load(os.DirFS(dir), ".")
	if err != nil {
		return nil, err
	}
	lines := replay.NativeStream(fx, opts.Stderr)
	if len(lines) == 0 {
		return nil, fmt.Errorf("%s: %w: no native lines to feed", dir, replay.ErrBadInput)
	}
	n := mk()
	d := &replay.Driven{Chunking: replay.Chunking{Kind: replay.ChunkLine}}
	var out bytes.Buffer
	add := func(evs []E, at replay.Fed) error {
		for _, e := range evs {
			b, err := encode(e)
			if err != nil {
				return err
			}
			out.Write(b)
			d.LineFed = append(d.LineFed, at)
		}
		return nil
	}
	for _, l := range lines {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		at := replay.Fed{First: l.Index, Last: l.Index}
		d.ErrFed = at
		evs, err := n.Line(l.Line)
		if aerr := add(evs, at); aerr != nil {
			return nil, fmt.Errorf("%s: native line %d: %w", dir, l.Index+1, aerr)
		}
		if err != nil {
			d.Err = fmt.Errorf("native line %d (sequence %d): %w", l.Index+1, l.Sequence, err)
			break
		}
	}
	if e, ok := n.(ender[E]); ok && d.Err == nil {
		evs, err := e.End()
		if aerr := add(evs, d.ErrFed); aerr != nil {
			return nil, fmt.Errorf("%s: end: %w", dir, aerr)
		}
		if err != nil {
			d.Err = fmt.Errorf("end of stream: %w", err)
		}
	}
	d.Output = out.Bytes()
	return settle(dir, lines, []*replay.Driven{d}, opts)
}

// encode is one event as a line of JSON, HTML characters unescaped.
func encode(e any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(e); err != nil {
		return nil, fmt.Errorf("encode event %T: %w", e, err)
	}
	return b.Bytes(), nil
}

// Events feeds the fixture's native lines in dir, one at a time, to a
// fresh normalizer from mk (your own, returning your own event type) and
// compares the events, one JSON object per line, with the golden (by
// default golden/go-<test name>.golden). A difference names the first
// diverging event line and the native line it came from; an error from
// the normalizer is reported with the line that caused it. Updating works
// as in Stream.
func Events[E any](t testing.TB, dir string, mk func() LineNormalizer[E], opts StreamOptions) {
	t.Helper()
	fill(t, dir, &opts)
	rep, err := CheckEvents(t.Context(), dir, mk, opts)
	finish(t, rep, err, opts.Update)
}
