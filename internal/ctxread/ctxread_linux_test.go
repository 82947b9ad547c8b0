//go:build linux

package ctxread_test

import (
	"context"
	"errors"
	"io"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/evcap/evcap/internal/ctxread"
	"golang.org/x/sys/unix"
)

// TestFileStopsABlockingPipe: a read of a quiet pipe with blocking
// descriptors (how a shell hands standard input over) returns ctx's cause
// once ctx is done, and the pipe's own descriptor is left blocking.
func TestFileStopsABlockingPipe(t *testing.T) {
	var fds [2]int
	if err := syscall.Pipe(fds[:]); err != nil {
		t.Fatal(err)
	}
	r, w := os.NewFile(uintptr(fds[0]), "stdin"), os.NewFile(uintptr(fds[1]), "writer")
	defer r.Close()
	defer w.Close()
	cause := errors.New("stopped")
	ctx, cancel := context.WithCancelCause(context.Background())
	rd, release := ctxread.File(ctx, r)
	defer release()
	done := make(chan error, 1)
	go func() {
		_, err := rd.Read(make([]byte, 16))
		done <- err
	}()
	time.Sleep(20 * time.Millisecond) // let it block
	cancel(cause)
	select {
	case err := <-done:
		if !errors.Is(err, cause) {
			t.Fatalf("read returned %v, want the context's cause", err)
		}
	case <-time.After(10 * time.Second): // a hang guard, not a timing check
		t.Fatal("the read of a quiet blocking pipe did not return after the context was done")
	}
	fl, err := unix.FcntlInt(uintptr(fds[0]), unix.F_GETFL, 0)
	if err != nil || fl&unix.O_NONBLOCK != 0 {
		t.Errorf("the pipe's own description became non-blocking (flags %#x, %v)", fl, err)
	}
}

// TestFileReadsARegularFileAsItIs: a regular file is read in place, its
// bytes all there.
func TestFileReadsARegularFileAsItIs(t *testing.T) {
	f, err := os.Open("ctxread.go")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	want, _ := os.ReadFile("ctxread.go")
	rd, release := ctxread.File(context.Background(), f)
	defer release()
	got, err := io.ReadAll(rd)
	if err != nil || string(got) != string(want) {
		t.Fatalf("read %d bytes (%v), want %d", len(got), err, len(want))
	}
}
