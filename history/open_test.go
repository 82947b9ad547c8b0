//go:build unix

package history_test

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/evcap/evcap/history"
	"github.com/google/go-cmp/cmp"
)

// entryLines reads every entry's line of an opened session.
func entryLines(t *testing.T, op *history.Opened) []string {
	t.Helper()
	defer op.Entries.Close()
	var out []string
	for {
		e, err := op.Entries.Next()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, string(e.Line))
	}
}

// fifoOf makes a FIFO a goroutine writes data into, once.
func fifoOf(t *testing.T, data []byte) string {
	t.Helper()
	fifo := filepath.Join(t.TempDir(), "session.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	go func() {
		f, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		defer f.Close()
		f.Write(data)
	}()
	return fifo
}

// TestOpenReadsAPipeOnce: a stored JSONL session read from a FIFO or from
// standard input (a pipe) gives the entries the file gives, its provider
// told from its first lines, though a pipe can be read only once.
func TestOpenReadsAPipeOnce(t *testing.T) {
	for _, p := range []string{"claude", "codex", "gemini"} {
		dir := filepath.Join("testdata", "corpus", p, "tools")
		files, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
		var path string
		for _, f := range files {
			if !strings.Contains(f, "live") && !strings.Contains(f, "stdout") {
				path = f
			}
		}
		if path == "" {
			t.Fatalf("%s: no stored session among %v", dir, files)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		op, err := history.Open(context.Background(), history.Target{Path: path})
		if err != nil {
			t.Fatal(err)
		}
		want := entryLines(t, op)
		if len(want) < 3 {
			t.Fatalf("%s: %d entries", path, len(want))
		}
		op, err = history.Open(context.Background(), history.Target{Path: fifoOf(t, data)})
		if err != nil {
			t.Fatalf("%s from a FIFO: %v", p, err)
		}
		if op.Provider != p {
			t.Errorf("%s from a FIFO: provider %q", p, op.Provider)
		}
		if d := cmp.Diff(want, entryLines(t, op)); d != "" {
			t.Errorf("%s from a FIFO (-file +FIFO):\n%s", p, d)
		}
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		go func() { w.Write(data); w.Close() }()
		op, err = history.Open(context.Background(), history.Target{Path: "-", Stdin: r})
		if err != nil {
			t.Fatalf("%s from standard input: %v", p, err)
		}
		if d := cmp.Diff(want, entryLines(t, op)); d != "" {
			t.Errorf("%s from standard input (-file +pipe):\n%s", p, d)
		}
		r.Close()
	}
}

// TestOpenRefusesADatabaseFromAPipe: opencode's database is opened by its
// path, so one coming down a pipe is refused with a reason, not misread.
func TestOpenRefusesADatabaseFromAPipe(t *testing.T) {
	head := append([]byte("SQLite format 3\x00"), make([]byte, 84)...)
	_, err := history.Open(context.Background(), history.Target{Path: fifoOf(t, head)})
	if err == nil || !strings.Contains(err.Error(), "not a pipe") {
		t.Fatalf("Open of a database from a FIFO: %v", err)
	}
}

// TestOpenStopsOnAQuietFIFO: a FIFO whose writer says nothing does not
// hold Open once its context is done.
func TestOpenStopsOnAQuietFIFO(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "quiet.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	quiet := make(chan struct{})
	defer close(quiet)
	opened := make(chan struct{})
	go func() {
		f, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		defer f.Close()
		close(opened)
		<-quiet
	}()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := history.Open(ctx, history.Target{Path: fifo})
		done <- err
	}()
	<-opened
	cancel()
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("Open of a quiet FIFO succeeded after its context was cancelled")
		}
	case <-time.After(10 * time.Second): // a hang guard, not a timing check
		t.Fatal("Open still blocked on the quiet FIFO after its context was cancelled")
	}
}
