package main

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/evcap/evcap/source"
)

// spoolOnce gives a command that must read its input more than once
// (promote sanitizes, then loads) a regular file to read: standard input
// (arg "-") and a named pipe are read once into a temporary copy
// (source.Spool), whose path it returns with a function that removes it;
// any other argument comes back as it is, with a no-op.
func spoolOnce(ctx context.Context, stdin io.Reader, arg string) (string, func(), error) {
	var r io.Reader = struct{ io.Reader }{stdin} // always copied, even when a file
	if f, ok := stdin.(*os.File); ok && f != nil && arg == "-" {
		sr, release := source.Interruptible(ctx, f)
		defer release()
		r = struct{ io.Reader }{sr}
	}
	if arg != "-" {
		fi, err := os.Stat(arg)
		if err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
			return arg, func() {}, nil // openCaptureFile judges it
		}
		f, err := os.Open(arg)
		if err != nil {
			return "", nil, err
		}
		defer f.Close()
		fr, release := source.Interruptible(ctx, f)
		defer release()
		r = struct{ io.Reader }{fr}
	}
	tmp, spooled, err := source.Spool(ctx, r, arg, func() (*os.File, error) { return createTemp("", "evcap-spool-*.jsonl") })
	if err != nil {
		return "", nil, fmt.Errorf("read %s: %w", arg, err)
	}
	if !spooled { // cannot happen: r is never a regular *os.File
		return "", nil, fmt.Errorf("read %s: not copied", arg)
	}
	tmp.Close()
	return tmp.Name(), func() {
		os.Remove(tmp.Name())
		forgetTemp(tmp.Name())
	}, nil
}
