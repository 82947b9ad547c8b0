package minimize

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/evcap/evcap/fixtures"
)

// Place writes reduced runs over the file a test reads, keeping the
// original beside it until Restore puts it back.
type Place struct {
	path, backup string
	write        func(io.Writer, *fixtures.Fixture) error
	restored     bool
}

// InPlace prepares to write runs over path with write (the fixture or
// capture form the file has). The original is copied to path +
// ".evcap-orig" first, so that it survives even a kill -9 of the
// minimizer; Restore moves it back. A backup left by an earlier run is
// an error: restore it first.
func InPlace(path string, write func(io.Writer, *fixtures.Fixture) error) (*Place, error) {
	backup := path + ".evcap-orig"
	if _, err := os.Stat(backup); err == nil {
		return nil, fmt.Errorf("%s exists (left by an interrupted minimize?): move it back over %s or remove it", backup, path)
	}
	orig, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("back up %s: %w", path, err)
	}
	if err := os.WriteFile(backup, orig, 0o644); err != nil {
		return nil, fmt.Errorf("back up %s: %w", path, err)
	}
	return &Place{path: path, backup: backup, write: write}, nil
}

// Path is the file the runs are written over.
func (p *Place) Path() string { return p.path }

// Backup is where the original waits until Restore.
func (p *Place) Backup() string { return p.backup }

// Put writes fx over the file, atomically (a reader never sees half).
func (p *Place) Put(fx *fixtures.Fixture) error {
	var b bytes.Buffer
	if err := p.write(&b, fx); err != nil {
		return fmt.Errorf("write reduced run to %s: %w", p.path, err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(p.path), ".evcap-minimize-*")
	if err != nil {
		return err
	}
	_, err = tmp.Write(b.Bytes())
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), p.path)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("write reduced run to %s: %w", p.path, err)
	}
	return nil
}

// Restore puts the original file back; calling it again does nothing.
func (p *Place) Restore() error {
	if p.restored {
		return nil
	}
	if err := os.Rename(p.backup, p.path); err != nil {
		return fmt.Errorf("restore %s from %s: %w", p.path, p.backup, err)
	}
	p.restored = true
	return nil
}

// Command is a shell command a predicate runs.
type Command struct {
	// Line is run with sh -c, in Dir (the current directory when empty),
	// with Env added to this process's environment.
	Line string
	Dir  string
	Env  []string
}

// run runs c and returns its exit status (-1 when it did not exit by
// itself) and its combined output.
func (c Command) run(ctx context.Context) (int, []byte, error) {
	cmd := exec.CommandContext(ctx, "sh", "-c", c.Line)
	cmd.Dir = c.Dir
	cmd.Env = append(os.Environ(), c.Env...)
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0, out, nil
	case errors.As(err, &ee):
		return ee.ExitCode(), out, nil
	case ctx.Err() != nil:
		return -1, out, nil
	}
	return 0, out, fmt.Errorf("run %q: %w", c.Line, err)
}

// CommandFails writes the whole run fx in place and runs c: it must fail
// (a non-zero exit status), else ErrNoFailure. It returns a predicate that
// holds for a run on which c exits with that same status while the run is
// in place, and the whole run's output, for the report. Go's test cache
// would answer from the first run, so c runs with GOFLAGS=-count=1 added.
// The caller restores the file (Place.Restore) when done.
func CommandFails(ctx context.Context, fx *fixtures.Fixture, c Command, place *Place) (Predicate, []byte, error) {
	c.Env = append(append([]string(nil), c.Env...), "GOFLAGS="+os.Getenv("GOFLAGS")+" -count=1")
	try := func(ctx context.Context, sub *fixtures.Fixture) (int, []byte, error) {
		if err := place.Put(sub); err != nil {
			return 0, nil, err
		}
		return c.run(ctx)
	}
	want, out, err := try(ctx, fx)
	if err != nil {
		return nil, nil, err
	}
	if want == 0 {
		return nil, out, ErrNoFailure
	}
	return func(ctx context.Context, sub *fixtures.Fixture) (bool, error) {
		got, _, err := try(ctx, sub)
		if err == nil {
			err = ctx.Err()
		}
		return got == want, err
	}, out, nil
}
