//go:build unix

package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestCaptureInputsThatAreNotFiles: sanitize, promote and bundle given a
// directory or an unreadable file return exit status 2 at once with a message naming what the input is (they
// used to spin at full CPU on a directory). scan gives 2 for input it
// cannot check.
func TestCaptureInputsThatAreNotFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pipe.jsonl")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	locked := filepath.Join(dir, "locked.jsonl")
	if err := os.WriteFile(locked, []byte("{}\n"), 0); err != nil {
		t.Fatal(err)
	}
	notCapture := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(notCapture, []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	inputs := []struct {
		name, path, want string
	}{
		{"directory", dir, "is a directory"},
		{"fifo", fifo, "named pipe"},
		{"unreadable", locked, "permission denied"},
	}
	commands := [][]string{
		{"sanitize", "-o", filepath.Join(dir, "out.jsonl")},
		{"promote", "--name", "x", "--dir", filepath.Join(dir, "fx")},
		{"bundle", "-o", filepath.Join(dir, "b.zip")},
	}
	type invocation struct {
		args []string
		want string
	}
	var runs []invocation
	for _, in := range inputs {
		if in.name == "unreadable" && os.Getuid() == 0 {
			continue // root reads any file
		}
		for _, c := range commands {
			if in.name == "fifo" && (c[0] == "sanitize" || c[0] == "bundle" || c[0] == "promote") {
				// sanitize reads a FIFO once, as standard input, and
				// bundle and promote copy it once to a temporary file (issue 16):
				// they wait for a writer like any reader of a FIFO.
				// TestInterrupt's FIFO cases and bundle's own tests check
				// them.
				continue
			}
			runs = append(runs, invocation{append(append([]string{}, c...), in.path), in.want})
		}
	}
	// scan reads a FIFO once as well, waiting for its writer
	// (scan.TestScansAPipeAsAFile, TestInterrupt).
	runs = append(runs,
		invocation{[]string{"scan", notCapture}, "not a capture or fixture"},
	)
	for _, r := range runs {
		t.Run(r.args[0]+" "+filepath.Base(r.args[len(r.args)-1]), func(t *testing.T) {
			var out, errb bytes.Buffer
			done := make(chan int, 1)
			go func() { done <- run(context.Background(), r.args, strings.NewReader(""), &out, &errb) }()
			select {
			case code := <-done:
				if code != 2 {
					t.Errorf("exit %d, want 2; stderr: %s", code, errb.String())
				}
				if !strings.Contains(errb.String(), r.want) {
					t.Errorf("stderr %q does not say %q", errb.String(), r.want)
				}
			case <-time.After(10 * time.Second):
				t.Fatalf("evcap %s did not return within 10 s", strings.Join(r.args, " "))
			}
		})
	}
}
