package scan_test

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/evcap/evcap/scan"
)

// endlessCapture is a capture that never ends (one record again and
// again) and cancels the scan's context after a few hundred lines.
type endlessCapture struct {
	n      int
	cancel context.CancelFunc
	rest   string
}

const endlessLine = `{"schemaVersion":1,"captureId":"01JDXQ4ZP8V6S1N0W9H3B5C7D2","sequence":2,"timestamp":"2026-11-29T19:32:07.633Z","provider":"gemini","sessionId":"s","turnId":"","stage":"native_in","eventType":"message","payload":{"type":"message","role":"assistant","content":"nothing secret here","delta":true},"redactions":[]}` + "\n"

func (e *endlessCapture) Read(p []byte) (int, error) {
	if e.rest == "" {
		e.n++
		if e.n == 300 {
			e.cancel()
		}
		e.rest = endlessLine
	}
	n := copy(p, e.rest)
	e.rest = e.rest[n:]
	return n, nil
}

func TestReadContextStops(t *testing.T) {
	sc, err := scan.New(scan.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var r io.Reader = &endlessCapture{cancel: cancel}
	done := make(chan error, 1)
	go func() {
		_, err := sc.ReadContext(ctx, r, "endless.jsonl", scan.KindCapture)
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("ReadContext after cancel: %v, want context.Canceled", err)
		}
	case <-time.After(5 * time.Second): // a hang guard only
		t.Fatal("ReadContext did not stop after its context was cancelled")
	}
	// The scanner itself keeps no context: a later Read runs to the end.
	if _, err := sc.Read(strings.NewReader(endlessLine), "one.jsonl", scan.KindCapture); err != nil {
		t.Errorf("Read after a cancelled ReadContext: %v", err)
	}
}
