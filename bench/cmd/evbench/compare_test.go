//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDroppedBytesReadsOnlyTheLastLine checks the tail read finds
// capture.end after far more than the tail's size of earlier records.
func TestDroppedBytesReadsOnlyTheLastLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cap.jsonl")
	body := strings.Repeat(`{"stage":"native_in","payload":{"droppedBytes":1}}`+"\n", 5000) +
		`{"stage":"meta","eventType":"capture.end","payload":{"droppedBytes":42}}` + "\n"
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := droppedBytes(path); got != "42" {
		t.Fatalf("droppedBytes = %q, want 42", got)
	}
	if got := droppedBytes(filepath.Join(t.TempDir(), "missing")); got != "?" {
		t.Fatalf("missing file: %q, want ?", got)
	}
}
