//go:build unix

package source_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/evcap/evcap/source"
)

// TestSpool: a regular file comes back as it is; a FIFO is read once into
// the temporary file, which then reads like the file would; a cancelled
// copy leaves no temporary file.
func TestSpool(t *testing.T) {
	dir := t.TempDir()
	want := []byte(strings.Repeat(`{"schemaVersion":1,"stage":"meta"}`+"\n", 20000)) // several reads' worth
	regular := filepath.Join(dir, "capture.jsonl")
	if err := os.WriteFile(regular, want, 0o600); err != nil {
		t.Fatal(err)
	}
	created := 0
	create := func() (*os.File, error) { created++; return os.CreateTemp(dir, "spool-*.jsonl") }

	f, err := os.Open(regular)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	io.CopyN(io.Discard, f, 10) // Spool rewinds
	got, spooled, err := source.Spool(context.Background(), f, regular, create)
	if err != nil || spooled || got != f || created != 0 {
		t.Fatalf("regular file: %v, spooled %v, same file %v, %d temporary files; want it back as it is", err, spooled, got == f, created)
	}
	if b, _ := io.ReadAll(got); !bytes.Equal(b, want) {
		t.Errorf("regular file: read %d bytes, want %d from the start", len(b), len(want))
	}

	fifo := filepath.Join(dir, "pipe.jsonl")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	go func() {
		w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		w.Write(want)
		w.Close()
	}()
	p, err := os.Open(fifo)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	got, spooled, err = source.Spool(context.Background(), p, fifo, create)
	if err != nil || !spooled || created != 1 {
		t.Fatalf("FIFO: %v, spooled %v, %d temporary files; want one copy", err, spooled, created)
	}
	defer os.Remove(got.Name())
	defer got.Close()
	for round := range 2 {
		b, err := io.ReadAll(got)
		if err != nil || !bytes.Equal(b, want) {
			t.Fatalf("FIFO copy, read %d: %d bytes, %v; want the %d written", round+1, len(b), err, len(want))
		}
		if _, err := got.Seek(0, io.SeekStart); err != nil {
			t.Fatal(err)
		}
	}

	stop := errors.New("stopped by the test")
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(stop)
	got, _, err = source.Spool(ctx, strings.NewReader("a pipe's bytes\n"), "-", create)
	if !errors.Is(err, stop) || got != nil {
		t.Errorf("cancelled: %v, %v; want the context's cause and no file", got, err)
	}
	left, _ := filepath.Glob(filepath.Join(dir, "spool-*"))
	if len(left) != 1 { // the FIFO's copy, still open above
		t.Errorf("temporary files left: %v, want only the FIFO's copy", left)
	}
}
