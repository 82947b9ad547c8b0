//go:build unix

package source

import (
	"bytes"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestOpenFIFO reads a capture through a named pipe: it can be read once
// only, so anything that opened it twice would hang or see nothing.
func TestOpenFIFO(t *testing.T) {
	capPath, _ := captureFile(t)
	want, _ := os.ReadFile(capPath)
	fifo := filepath.Join(t.TempDir(), "capture.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	go func() {
		w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		w.Write(want)
		w.Close()
	}()
	in, err := Open(fifo, nil)
	if err != nil {
		t.Fatal(err)
	}
	if in.Kind != KindCapture {
		t.Errorf("FIFO kind %v, want capture", in.Kind)
	}
	if got := readAll(t, in); !bytes.Equal(got, want) {
		t.Errorf("read %d bytes through the FIFO, want %d", len(got), len(want))
	}
}
