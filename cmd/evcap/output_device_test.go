//go:build unix

package main

import (
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestOutputToANamedPipe: -o naming something that is not a regular file
// (here a FIFO; /dev/null is the everyday case) is written directly, not
// replaced by a renamed temporary file. Renaming onto /dev/null turned it
// into a regular file for the whole machine (found when bench/run.sh ran
// `evcap sanitize CAPTURE -o /dev/null` as root).
func TestOutputToANamedPipe(t *testing.T) {
	dir := t.TempDir()
	stdout, err := os.ReadFile("../../testdata/corpus/claude/tools.stdout.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	capture := filepath.Join(dir, "cap.jsonl")
	if _, errOut, code := runEvcap(t, stdout, "record", "--stdin", "--render", "none", "-o", capture); code != 0 {
		t.Fatalf("record --stdin: exit %d\n%s", code, errOut)
	}
	for _, c := range [][]string{
		{"sanitize", capture, "-o"},
		{"view", capture, "-o"},
		{"bundle", capture, "-o"},
	} {
		fifo := filepath.Join(dir, c[0]+".fifo")
		if err := syscall.Mkfifo(fifo, 0o600); err != nil {
			t.Skipf("mkfifo: %v", err)
		}
		got := make(chan int, 1)
		go func() {
			f, err := os.Open(fifo)
			if err != nil {
				got <- -1
				return
			}
			n, _ := io.Copy(io.Discard, f)
			f.Close()
			got <- int(n)
		}()
		if _, errOut, code := runEvcap(t, nil, append(c, fifo)...); code != 0 {
			t.Fatalf("%s -o FIFO: exit %d\n%s", c[0], code, errOut)
		}
		select {
		case n := <-got:
			if n <= 0 {
				t.Errorf("%s -o FIFO: the reader got %d bytes", c[0], n)
			}
		case <-time.After(10 * time.Second):
			// The writer never opened the FIFO: it wrote a file and renamed
			// it over the FIFO (the reader's open is still waiting).
			t.Fatalf("%s -o FIFO: nothing was written into the FIFO", c[0])
		}
		fi, err := os.Lstat(fifo)
		if err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
			t.Errorf("%s -o FIFO: the FIFO was replaced (%v, %v)", c[0], fi.Mode(), err)
		}
	}
}
