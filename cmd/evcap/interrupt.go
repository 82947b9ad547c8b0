package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"syscall"

	"github.com/evcap/evcap/internal/ctxread"
)

// interrupted is the cause of a context cancelled by a signal.
type interrupted struct{ sig os.Signal }

func (i interrupted) Error() string { return fmt.Sprintf("interrupted (%v)", i.sig) }

// signum is sig's number, 2 for an unknown signal (as SIGINT).
func signum(sig os.Signal) int {
	if s, ok := sig.(syscall.Signal); ok {
		return int(s)
	}
	return int(syscall.SIGINT)
}

// interruptCode is the exit status of a run stopped by ctx's signal, as a
// shell reports it: 128 + the signal number (130 for SIGINT, 143 for
// SIGTERM); 0 when ctx was not stopped by a signal.
func interruptCode(ctx context.Context) int {
	var i interrupted
	if !errors.As(context.Cause(ctx), &i) {
		return 0
	}
	return 128 + signum(i.sig)
}

// budgetReader is how commands read their input: it stops once ctx is
// done (ctxread.Reader, so a command that streams its input record by
// record stops at the next read after a signal, whatever library does the
// reading), and it shows the run's memory budget (memoryBudget) how long
// the lines read are, so that the soft memory limit follows the longest
// line.
type budgetReader struct {
	r io.Reader
	w *lineWatch // nil when ctx carries no budget
}

func newBudgetReader(ctx context.Context, r io.Reader) budgetReader {
	c := budgetReader{r: ctxread.Reader(ctx, r)}
	if b := budgetOf(ctx); b != nil && !b.fixed {
		c.w = &lineWatch{b: b}
	}
	return c
}

func (c budgetReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	if c.w != nil && n > 0 {
		c.w.saw(p[:n])
	}
	return n, err
}

// budgetReadSeeker is a budgetReader that can still seek, for a library
// that reads a file twice when it can (sanitize learns the project root
// first).
type budgetReadSeeker struct {
	budgetReader
	s io.Seeker
}

func (c budgetReadSeeker) Seek(off int64, whence int) (int64, error) {
	if c.w != nil {
		c.w.reset()
	}
	return c.s.Seek(off, whence)
}

// seekerWithContext is withContext for a reader the library seeks in.
func seekerWithContext(ctx context.Context, r io.ReadSeeker) io.ReadSeeker {
	if ctx == nil {
		return r
	}
	return budgetReadSeeker{newBudgetReader(ctx, r), r}
}

// withContext wraps r so that it stops reading when ctx is done, keeping
// its Seek if it has one; r as it is when ctx is nil.
func withContext(ctx context.Context, r io.Reader) io.Reader {
	if ctx == nil || r == nil {
		return r
	}
	if s, ok := r.(io.Seeker); ok {
		return budgetReadSeeker{newBudgetReader(ctx, r), s}
	}
	return newBudgetReader(ctx, r)
}

// temps are the temporary files of this process that main removes when it
// exits on a signal without waiting for the command (see main).
var temps struct {
	sync.Mutex
	names map[string]bool
}

// createTemp makes a temporary file in dir, as os.CreateTemp, and
// remembers it until forgetTemp, so that an interrupted run leaves no
// temporary file behind either.
func createTemp(dir, pattern string) (*os.File, error) {
	temps.Lock()
	defer temps.Unlock()
	f, err := os.CreateTemp(dir, pattern)
	if err != nil {
		return nil, err
	}
	if temps.names == nil {
		temps.names = map[string]bool{}
	}
	temps.names[f.Name()] = true
	return f, nil
}

// forgetTemp is called once name was renamed or removed.
func forgetTemp(name string) {
	temps.Lock()
	delete(temps.names, name)
	temps.Unlock()
}

// removeTemps removes every temporary file still remembered. It holds the
// lock for good: the process exits right after.
func removeTemps() {
	temps.Lock()
	for name := range temps.names {
		os.Remove(name)
	}
}

// writeFileAtomically writes path through a temporary file in the same
// directory, renamed onto path only when write succeeded, so that a failed
// or interrupted run leaves path as it was and no half file. The file gets
// mode perm. An error of write is returned as it is; the others name path.
//
// A path that exists and is not a regular file (/dev/null, /dev/stdout, a
// named pipe, a terminal) is written directly: renaming onto it would
// replace the device with a file, and there is no half file to avoid.
func writeFileAtomically(path string, perm os.FileMode, write func(w io.Writer) error) error {
	if fi, err := os.Stat(path); err == nil && !fi.Mode().IsRegular() && !fi.IsDir() {
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			return fmt.Errorf("write %s: %w", path, err)
		}
		werr := write(f)
		if cerr := f.Close(); werr == nil && cerr != nil {
			return fmt.Errorf("write %s: %w", path, cerr)
		}
		return werr
	}
	tmp, err := createTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	name := tmp.Name()
	defer forgetTemp(name)
	if err := write(tmp); err != nil {
		tmp.Close()
		os.Remove(name)
		return err // the writer's own error, as it would be without the temporary file
	}
	werr := tmp.Close()
	if werr == nil {
		werr = os.Chmod(name, perm)
	}
	if werr == nil {
		werr = os.Rename(name, path)
	}
	if werr != nil {
		os.Remove(name)
		return fmt.Errorf("write %s: %w", path, werr)
	}
	return nil
}
