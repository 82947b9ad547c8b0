//go:build unix

package main

import (
	"bytes"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestPromoteFromFIFO: promote reads a named pipe once (into a temporary
// copy) and writes the same fixture as from the file itself; no copy is
// left behind.
func TestPromoteFromFIFO(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("TMPDIR", dir)
	stdout, err := os.ReadFile("../../testdata/corpus/claude/tools.stdout.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	capture := filepath.Join(dir, "cap.jsonl")
	if _, errOut, code := runEvcap(t, stdout, "record", "--stdin", "--render", "none", "-o", capture); code != 0 {
		t.Fatalf("record --stdin: exit %d\n%s", code, errOut)
	}
	if _, errOut, code := runEvcap(t, nil, "promote", capture, "--name", "tools", "--dir", filepath.Join(dir, "fromfile")); code != 0 {
		t.Fatalf("promote FILE: exit %d\n%s", code, errOut)
	}
	fifo := filepath.Join(dir, "pipe.jsonl")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	go func() {
		f, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		b, _ := os.ReadFile(capture)
		f.Write(b)
		f.Close()
	}()
	if _, errOut, code := runEvcap(t, nil, "promote", fifo, "--name", "tools", "--dir", filepath.Join(dir, "fromfifo")); code != 0 {
		t.Fatalf("promote FIFO: exit %d\n%s", code, errOut)
	}
	for _, name := range []string{"fixture.json", "golden/normalized.golden", "golden/term.golden", "golden/legacy.golden"} {
		a, err := os.ReadFile(filepath.Join(dir, "fromfile", "claude", "tools", name))
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(dir, "fromfifo", "claude", "tools", name))
		if err != nil {
			t.Fatal(err)
		}
		if name == "fixture.json" { // it names its source, which differs
			b = bytes.Replace(b, []byte(`"source": "pipe.jsonl"`), []byte(`"source": "cap.jsonl"`), 1)
		}
		if string(a) != string(b) {
			t.Errorf("%s differs between promote FILE and promote FIFO", name)
		}
	}
	left, _ := filepath.Glob(filepath.Join(dir, "evcap-*"))
	if len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
}
