package record

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/evcap/evcap/envelope"
	"github.com/evcap/evcap/event"
	"github.com/evcap/evcap/internal/corpustest"
	"github.com/evcap/evcap/normalize/claude"
	"github.com/evcap/evcap/normalize/opencode"
	"github.com/tidwall/gjson"
)

const corpus = "../testdata/corpus"

func normalizers(p string) (event.Normalizer, error) {
	switch p {
	case "claude":
		return claude.New(), nil
	case "opencode":
		return opencode.New(), nil
	}
	return nil, errors.New("no normalizer for " + p)
}

// readCapture reads a capture back (corpustest.Records, failing on any
// invalid record) and checks its sequence numbers run from 1.
func readCapture(t *testing.T, path string) []*envelope.Record {
	t.Helper()
	out := corpustest.Records(t, path)
	for i, rec := range out {
		if rec.Sequence != int64(i+1) {
			t.Fatalf("record %d has sequence %d", i+1, rec.Sequence)
		}
	}
	if len(out) < 2 || out[0].EventType != envelope.EventCaptureStart || out[len(out)-1].EventType != envelope.EventCaptureEnd {
		t.Fatalf("capture does not start with capture.start and end with capture.end: %d records", len(out))
	}
	return out
}

// stallRenderer blocks its first Render until release is closed, so the
// pipeline falls behind the child.
type stallRenderer struct {
	once    sync.Once
	release chan struct{}
}

func (s *stallRenderer) Render(event.Event) error {
	s.once.Do(func() { <-s.release })
	return nil
}
func (s *stallRenderer) Close() error { return nil }

// TestGapWhenWriterFallsBehind stalls the pipeline while the child prints
// far more than the queue holds: the passthrough still gets every byte at
// once, and the capture says in gap records exactly how much it dropped.
func TestGapWhenWriterFallsBehind(t *testing.T) {
	dir := t.TempDir()
	initLine, err := os.ReadFile(filepath.Join(corpus, "claude/tools.stdout.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	initLine = initLine[:bytes.IndexByte(initLine, '\n')+1]
	if err := os.WriteFile(filepath.Join(dir, "init.jsonl"), initLine, 0o644); err != nil {
		t.Fatal(err)
	}
	const n = 200000
	stall := &stallRenderer{release: make(chan struct{})}
	var pass lockedWriter
	passDone := make(chan struct{})
	go func() {
		// Released once the child has printed everything, which proves
		// the stalled writer did not hold the child or the passthrough.
		for {
			time.Sleep(20 * time.Millisecond)
			if bytes.Count(pass.snapshot(), []byte{'\n'}) >= n+1 {
				break
			}
		}
		close(stall.release)
		close(passDone)
	}()
	res, err := Command([]string{"sh", "-c", "cat " + filepath.Join(dir, "init.jsonl") + "; seq 1 " + strconv.Itoa(n)}, Options{
		Provider: "claude", NewNormalizer: normalizers, Output: filepath.Join(dir, "cap.jsonl"),
		NewRenderer: func(io.Writer) Renderer { return stall },
		Passthrough: &pass, QueueBytes: 64 << 10,
		DetectWait: time.Second,
	})
	if err != nil {
		t.Fatal(err)
	}
	<-passDone
	if res.ExitCode != 0 {
		t.Fatalf("exit %d", res.ExitCode)
	}
	recs := readCapture(t, res.Path)
	var lines, gapLines, gapBytes, bytesSeen int64
	gaps := 0
	for _, r := range recs {
		switch {
		case r.Stage == envelope.StageNativeIn && r.EventType == envelope.EventGap:
			gaps++
			gapLines += gjson.GetBytes(r.Payload, "droppedLines").Int()
			gapBytes += gjson.GetBytes(r.Payload, "droppedBytes").Int()
		case r.Stage == envelope.StageNativeIn:
			lines++
			bytesSeen += int64(len(envelope.DecodeNativeLine(r.EventType, r.Payload))) + 1
		}
	}
	total := int64(bytes.Count(pass.snapshot(), []byte{'\n'}))
	if gaps == 0 || gapBytes == 0 {
		t.Fatalf("no gap recorded although the writer was stalled (%d lines recorded of %d)", lines, total)
	}
	if lines+gapLines != total {
		t.Errorf("recorded %d lines + %d dropped = %d, want %d", lines, gapLines, lines+gapLines, total)
	}
	if bytesSeen+gapBytes != int64(len(pass.snapshot())) {
		t.Errorf("recorded %d bytes + %d dropped, want %d", bytesSeen, gapBytes, len(pass.snapshot()))
	}
	end := recs[len(recs)-1].Payload
	if gjson.GetBytes(end, "cleanEnd").Bool() || gjson.GetBytes(end, "droppedBytes").Int() != gapBytes {
		t.Errorf("capture.end does not report the drop: %s", end)
	}
}

// lockedWriter is a buffer written by the pipe reader and read by the test.
type lockedWriter struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *lockedWriter) snapshot() []byte {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]byte(nil), l.buf.Bytes()...)
}

// TestSSEUntilIdle attaches to a server that replays the real opencode
// /event stream of the corpus and then keeps the connection open: with
// UntilIdle the recording ends on its own when the session goes idle.
func TestSSEUntilIdle(t *testing.T) {
	sse, err := os.ReadFile(filepath.Join(corpus, "opencode/serve-tools.sse.txt"))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.Write(sse)
		w.(http.Flusher).Flush()
		<-r.Context().Done() // a live bus never ends by itself
	}))
	defer srv.Close()
	out := filepath.Join(t.TempDir(), "sse.jsonl")
	done := make(chan struct{})
	var res Result
	go func() {
		defer close(done)
		res, err = SSE(context.Background(), srv.URL+"/event", Options{
			NewNormalizer: normalizers, Output: out, UntilIdle: true})
	}()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("SSE recording did not stop when the session went idle")
	}
	if err != nil {
		t.Fatal(err)
	}
	if res.Provider != "opencode" {
		t.Errorf("provider %q, want opencode (detected)", res.Provider)
	}
	recs := readCapture(t, out)
	events := strings.Count(string(sse), "\ndata: ") + 1
	native, idle := 0, false
	for _, r := range recs {
		if r.Stage == envelope.StageNativeIn {
			native++
		}
		if r.Stage == envelope.StageNormalizedOut && gjson.GetBytes(r.Payload, "status").String() == "idle" {
			idle = true
		}
	}
	if !idle {
		t.Error("no idle status event recorded")
	}
	// Everything up to the idle event is recorded; the bus may send a few
	// more events after it that arrived before the stop.
	if native < 10 || native > events {
		t.Errorf("%d native records for %d SSE events", native, events)
	}
	if !strings.Contains(strings.Join(res.Notes, "\n"), "went idle") {
		t.Errorf("notes %q do not say why the recording stopped", res.Notes)
	}
}

// TestNormalizedOutReplays checks, for every Claude corpus run, that the
// capture's native_in normalized again gives its normalized_out, with the
// causes pointing at the right native records.
func TestNormalizedOutReplays(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(corpus, "claude/*.stdout.jsonl"))
	if len(files) == 0 {
		t.Fatal("no corpus")
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "c.jsonl")
			res, err := Command([]string{"cat", f}, Options{NewNormalizer: normalizers, Output: out})
			if err != nil || res.ExitCode != 0 {
				t.Fatalf("record: %v, exit %d", err, res.ExitCode)
			}
			recs := readCapture(t, out)
			n := claude.New()
			var again []event.Event
			var recorded []string
			for _, r := range recs {
				switch r.Stage {
				case envelope.StageNativeIn:
					if r.EventType != envelope.EventStderr {
						again = append(again, n.Line(r.Sequence, envelope.DecodeNativeLine(r.EventType, r.Payload))...)
					}
				case envelope.StageNormalizedOut:
					recorded = append(recorded, string(r.Payload)+" cause="+causeString(r.Cause))
				}
			}
			again = append(again, n.End()...)
			var want []string
			for _, e := range again {
				c := e.Cause
				e.Cause = nil
				b, _ := jsonMarshal(e)
				want = append(want, string(b)+" cause="+causeString(c))
			}
			if strings.Join(recorded, "\n") != strings.Join(want, "\n") {
				t.Errorf("normalized_out differs from native_in normalized again:\n got %q\nwant %q", recorded, want)
			}
			if len(recorded) == 0 {
				t.Error("no normalized_out records")
			}
		})
	}
}

func causeString(c []int64) string {
	var b strings.Builder
	for _, v := range c {
		b.WriteString(strconv.FormatInt(v, 10) + ",")
	}
	return b.String()
}

func TestRedactArgv(t *testing.T) {
	got := RedactArgv([]string{"claude", "-p", "hi", "--api-key", "sk-1", "--token=abc", "--model", "m",
		"OPENAI_API_KEY=sk-2", "--verbose", "path=/x"}, nil)
	want := []string{"claude", "-p", "hi", "--api-key", argvMask, "--token=" + argvMask, "--model", "m",
		"OPENAI_API_KEY=" + argvMask, "--verbose", "path=/x"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("RedactArgv:\n got %q\nwant %q", got, want)
	}
}

// jsonMarshal encodes as evcap writes its own payloads (< > & unescaped).
func jsonMarshal(v any) ([]byte, error) { return envelope.MarshalPayload(v) }
