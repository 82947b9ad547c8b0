package source

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/evcap/evcap/internal/ctxread"
)

// Spool makes an input readable more than once, reading it only once: a
// command that reads its capture twice (bundle and promote sanitize it,
// and the sanitizer first learns the project root the capture names) calls
// it on whatever it opened, so that a FIFO or a pipe works as a file does.
//
// A regular file is returned as it is, positioned at its start, with
// spooled false: nothing is copied. Anything else (a FIFO, a pipe, a
// socket, standard input, any reader that is not a regular *os.File) is
// copied once into a file made by create (a temporary file, which the
// caller removes when it is done, as it chose where it lives), returned
// positioned at its start with spooled true. The copy stops with ctx's
// cause once ctx is done (checked before each read); on any error the
// temporary file is closed and removed, and f is nil.
func Spool(ctx context.Context, r io.Reader, name string, create func() (*os.File, error)) (f *os.File, spooled bool, err error) {
	if rf, ok := r.(*os.File); ok {
		if st, err := rf.Stat(); err == nil && st.Mode().IsRegular() {
			if _, err := rf.Seek(0, io.SeekStart); err != nil {
				return nil, false, fmt.Errorf("rewind %s: %w", name, err)
			}
			return rf, false, nil
		}
	}
	tmp, err := create()
	if err != nil {
		return nil, false, fmt.Errorf("copy %s to a temporary file: %w", name, err)
	}
	_, err = io.CopyBuffer(tmp, ctxread.Reader(ctx, r), make([]byte, 256<<10))
	if err == nil {
		_, err = tmp.Seek(0, io.SeekStart)
	}
	if err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		if cause := context.Cause(ctx); cause != nil {
			return nil, false, cause
		}
		return nil, false, fmt.Errorf("copy %s to %s: %w", name, tmp.Name(), err)
	}
	return tmp, true, nil
}
