//go:build unix

package source_test

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/evcap/evcap/source"
)

// TestOpenContextFIFO: a read blocked on a FIFO whose writer went quiet
// returns with the context's cause once the context is done, well before
// the writer would have written again.
func TestOpenContextFIFO(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "pipe.jsonl")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	quiet := make(chan struct{})
	defer close(quiet)
	go func() {
		w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		defer w.Close()
		w.Write([]byte(`{"schemaVersion":1,"stage":"meta"}` + "\n"))
		<-quiet // holds the FIFO open, writing nothing more
	}()
	stop := errors.New("stopped by the test")
	ctx, cancel := context.WithCancelCause(context.Background())
	in, err := source.OpenContext(ctx, fifo, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	if in.Kind != source.KindCapture {
		t.Fatalf("kind %v, want capture", in.Kind)
	}
	time.AfterFunc(100*time.Millisecond, func() { cancel(stop) })
	done := make(chan error, 1)
	start := time.Now()
	go func() {
		_, err := io.ReadAll(in.Reader())
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, stop) {
			t.Errorf("read ended with %v, want the context's cause", err)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("read returned after %v", d)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the read blocked on the quiet FIFO did not return after the context was done")
	}

	if _, err := source.OpenContext(ctx, fifo, nil); !errors.Is(err, stop) {
		t.Errorf("OpenContext with a done context: %v, want its cause", err)
	}
}
