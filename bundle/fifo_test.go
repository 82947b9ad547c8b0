//go:build unix

package bundle_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/evcap/evcap/bundle"
	"github.com/evcap/evcap/source"
)

// TestBundleFromFIFO bundles a capture read from a named pipe the way evcap
// bundle does (source.Spool copies it once to a temporary file) and from
// the same capture as a regular file: the archives must be byte-identical.
// The sanitizer is left to learn the project root from the capture (no
// Project, a DefaultProject that is not the run's), so an input read only
// once as a stream would come out differently (the path in capture.start,
// before the line that names the root, would stay), which the test checks
// too.
func TestBundleFromFIFO(t *testing.T) {
	r := claudeTools(t)
	// capture.start names a path under the project before the init line
	// names the project root (synthetic argv, the lines are the corpus's).
	r.Argv = append(append([]string(nil), r.Argv...), "--add-dir", "/tmp/realcli/runs/"+r.Name+"/project/src")
	capture := build(t, r)
	so, sc := machine(r)
	so.DefaultProject = "/elsewhere"
	so.Temp = []string{"/tmp/realcli/runs/" + r.Name + "/tmp"} // not /tmp/realcli, which holds the project too
	opts := bundle.Options{EvcapVersion: "test", Sanitize: so, Scan: sc, Normalizer: newNormalizer}
	dir := t.TempDir()
	try := func(in io.Reader) ([]byte, error) {
		b, err := bundle.Build(context.Background(), in, "run.jsonl", scratch(t), opts)
		if err != nil {
			return nil, err
		}
		return zipBytes(t, b), nil
	}
	make := func(in io.Reader) []byte {
		t.Helper()
		b, err := try(in)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}

	file := filepath.Join(dir, "run.jsonl")
	if err := os.WriteFile(file, capture, 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	want := make(f)

	fifo := filepath.Join(dir, "pipe.jsonl")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	go func() {
		w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		w.Write(capture)
		w.Close()
	}()
	p, err := os.Open(fifo)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	spool, spooled, err := source.Spool(context.Background(), p, fifo, func() (*os.File, error) { return os.CreateTemp(dir, "spool-*") })
	if err != nil || !spooled {
		t.Fatalf("spool the FIFO: %v (spooled %v)", err, spooled)
	}
	defer spool.Close()
	if got := make(spool); !bytes.Equal(got, want) {
		t.Errorf("the archive of the FIFO differs from the archive of the file (%d vs %d bytes)", len(got), len(want))
	}

	// Read once as a stream, the path in capture.start is not hidden, and
	// the scan refuses the bundle.
	once, err := try(struct{ io.Reader }{bytes.NewReader(capture)})
	if !errors.Is(err, bundle.ErrLeak) && bytes.Equal(once, want) {
		t.Errorf("a one-pass read gave the same archive (%v): the test shows nothing about spooling", err)
	}
}
