//go:build linux

package source_test

import (
	"context"
	"io"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/evcap/evcap/source"
)

// blockingPipe is a pipe as a shell hands it to a process: blocking
// descriptors, which os.NewFile leaves to plain read(2) calls.
func blockingPipe(t *testing.T) (r, w *os.File) {
	t.Helper()
	var fds [2]int
	if err := syscall.Pipe(fds[:]); err != nil {
		t.Fatal(err)
	}
	r, w = os.NewFile(uintptr(fds[0]), "stdin"), os.NewFile(uintptr(fds[1]), "pipe-writer")
	if r.SetReadDeadline(time.Time{}) == nil {
		t.Fatal("a blocking pipe took a deadline: the test no longer stands for a shell's pipe")
	}
	return r, w
}

// TestStdinPipeStopsWithContext: standard input that is a quiet pipe (a
// blocking descriptor, as a shell gives it) no longer holds the reading
// once the context is done, and a pipe that speaks is read to its end as
// it was written, its writer's end left blocking.
func TestStdinPipeStopsWithContext(t *testing.T) {
	r, w := blockingPipe(t)
	defer r.Close()
	defer w.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := source.OpenContext(ctx, source.Stdin, r)
		done <- err
	}()
	time.Sleep(20 * time.Millisecond) // let it block in its first read
	cancel()
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("OpenContext read a quiet pipe to a line after its context was done")
		}
	case <-time.After(10 * time.Second): // a hang guard, not a timing check
		t.Fatal("OpenContext still blocked on a quiet stdin pipe after its context was done")
	}

	r2, w2 := blockingPipe(t)
	defer r2.Close()
	data, err := os.ReadFile("../testdata/corpus/claude/tools-partial.stdout.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	go func() { w2.Write(data); w2.Close() }()
	in, err := source.OpenContext(context.Background(), source.Stdin, r2)
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(in.Reader())
	in.Close()
	if err != nil || string(got) != string(data) {
		t.Fatalf("read %d bytes (%v) through the pipe, want the %d written", len(got), err, len(data))
	}
}
