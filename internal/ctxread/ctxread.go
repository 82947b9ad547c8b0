// Package ctxread makes reads of a file stop once a context is done, a
// read blocked on a quiet FIFO, pipe or terminal included, so that every
// evcap command returns promptly at SIGINT however its input reaches it.
// It is the one place that knows how: the read deadline of a file the
// poller holds is moved into the past, and standard input of that kind,
// which a shell hands over blocking, is first opened again to be pollable
// (pollable_linux.go). Package source (its Open and Interruptible), scan,
// history, bundle and cmd/evcap's input readers use it.
//
// It does not open paths or sniff what they hold: that is package source.
package ctxread

import (
	"context"
	"io"
	"os"
	"time"
)

// File is f as a reader whose reads fail with ctx's cause once ctx is
// done, a read blocked on a quiet FIFO, pipe or terminal included.
// release stops watching ctx and closes what was opened again; f itself
// is left open.
func File(ctx context.Context, f *os.File) (r io.Reader, release func()) {
	if ctx == nil {
		ctx = context.Background()
	}
	pf, closeF := Pollable(f)
	stop := Deadline(ctx, pf)
	return Reader(ctx, pf), func() {
		if stop != nil {
			stop()
		}
		closeF()
	}
}

// Deadline moves f's read deadline into the past once ctx is done, so
// that a read blocked on a FIFO or pipe returns; files that take no
// deadline (regular files) are left as they are. It returns the function
// that stops watching ctx, nil when ctx is never done.
func Deadline(ctx context.Context, f *os.File) func() bool {
	if ctx.Done() == nil {
		return nil
	}
	return context.AfterFunc(ctx, func() { _ = f.SetReadDeadline(time.Unix(1, 0)) })
}

// Reader makes r fail with ctx's cause once ctx is done: before each
// read, and instead of the error of a read that ctx cut short.
func Reader(ctx context.Context, r io.Reader) io.Reader {
	if ctx.Done() == nil {
		return r
	}
	return ctxReader{ctx, r}
}

type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := context.Cause(c.ctx); err != nil {
		return 0, err
	}
	n, err := c.r.Read(p)
	if err != nil && err != io.EOF {
		if cause := context.Cause(c.ctx); cause != nil {
			return n, cause // a read ctx cut short (its deadline moved)
		}
	}
	return n, err
}
