package replayrun

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/evcap/evcap/source"
)

// Spool gives a program that must read its input more than once (evcap
// replay runs several checks over it, evcap promote sanitizes, then
// loads) a regular file to read: standard input (path "-", read from
// stdin) and a named pipe are read once into a temporary copy
// (source.Spool) made by t, whose path it returns with a function that
// removes it; any other path comes back as it is, with a no-op. A read
// blocked on a quiet pipe ends once ctx is done.
func Spool(ctx context.Context, stdin io.Reader, path string, t TempFiles) (string, func(), error) {
	var r io.Reader = struct{ io.Reader }{stdin} // always copied, even when a file
	if f, ok := stdin.(*os.File); ok && f != nil && path == "-" {
		sr, release := source.Interruptible(ctx, f)
		defer release()
		r = struct{ io.Reader }{sr}
	}
	if path != "-" {
		fi, err := os.Stat(path)
		if err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
			return path, func() {}, nil // the caller's opener judges it
		}
		f, err := os.Open(path)
		if err != nil {
			return "", nil, err
		}
		defer f.Close()
		fr, release := source.Interruptible(ctx, f)
		defer release()
		r = struct{ io.Reader }{fr}
	}
	tmp, spooled, err := source.Spool(ctx, r, path, func() (*os.File, error) { return t.create("", "evcap-spool-*.jsonl") })
	if err != nil {
		return "", nil, fmt.Errorf("read %s: %w", path, err)
	}
	if !spooled { // cannot happen: r is never a regular *os.File
		return "", nil, fmt.Errorf("read %s: not copied", path)
	}
	tmp.Close()
	return tmp.Name(), func() {
		os.Remove(tmp.Name())
		t.removed(tmp.Name())
	}, nil
}
