package record

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/evcap/evcap/redact"
	"github.com/tidwall/gjson"
)

// TestBatchedDeltasWrittenWhenIdle: the line redactor's streams batch
// deltas while input is waiting, and the pipeline releases them once it
// has taken all there is. A child prints the lines of a real
// partial-message run up to its first block end (a thinking block still
// open, far less than a batch of text) and then waits, without exiting or ending the block,
// until the capture holds its deltas: they must be written while it
// waits, not at its exit.
func TestBatchedDeltasWrittenWhenIdle(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join(corpus, "claude/long-text-partial.stdout.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	// The lines before the first block ends.
	var lines [][]byte
	deltas := 0
	for _, l := range bytes.SplitAfter(raw, []byte("\n")) {
		et := gjson.GetBytes(l, "event.type").String()
		if et == "content_block_stop" || et == "message_stop" {
			break
		}
		if et == "content_block_delta" {
			deltas++
		}
		lines = append(lines, l)
	}
	if deltas < 5 {
		t.Fatalf("only %d deltas before the first block ends", deltas)
	}
	dir := t.TempDir()
	src, mark, out := filepath.Join(dir, "lines.jsonl"), filepath.Join(dir, "go-on"), filepath.Join(dir, "c.jsonl")
	if err := os.WriteFile(src, bytes.Join(lines, nil), 0o600); err != nil {
		t.Fatal(err)
	}
	red, err := redact.New(redact.Options{Project: "/tmp/realcli/runs/claude/long-text-partial/project"})
	if err != nil {
		t.Fatal(err)
	}
	script := fmt.Sprintf("cat %q; i=0; while [ ! -e %q ] && [ $i -lt 3000 ]; do sleep 0.01; i=$((i+1)); done", src, mark)
	done := make(chan error, 1)
	go func() {
		res, err := Command([]string{"sh", "-c", script}, Options{NewNormalizer: allNormalizers, Output: out, Redactor: red})
		if err == nil && res.ExitCode != 0 {
			err = fmt.Errorf("exit %d, notes %v", res.ExitCode, res.Notes)
		}
		done <- err
	}()
	// The last delta may be held: its text could still start a secret.
	want := deltas - 1
	got := 0
	deadline := time.Now().Add(recordedGuard)
	for time.Now().Before(deadline) {
		got = 0
		if data, err := os.ReadFile(out); err == nil {
			for _, l := range bytes.Split(data, []byte("\n")) {
				if gjson.GetBytes(l, "stage").String() == "native_in" && gjson.GetBytes(l, "payload.event.type").String() == "content_block_delta" {
					got++
				}
			}
		}
		if got >= want {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := os.WriteFile(mark, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatalf("record: %v", err)
	}
	if got < want {
		t.Fatalf("while the child waited, the capture held %d of its %d deltas (want at least %d)", got, deltas, want)
	}
	t.Logf("%d of %d deltas written while the child waited", got, deltas)
}
