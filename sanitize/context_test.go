package sanitize_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/evcap/evcap/sanitize"
)

// endlessCapture hands out the example capture's message record again and
// again with rising sequence numbers, and cancels ctx once it has handed
// out cancelAfter records: a capture that never ends, so only the context
// can stop Sanitize.
type endlessCapture struct {
	line        string
	seq         int
	buf         bytes.Buffer
	cancel      context.CancelFunc
	cancelAfter int
}

func newEndless(cancel context.CancelFunc, after int) *endlessCapture {
	lines := strings.Split(exampleCapture, "\n")
	return &endlessCapture{line: lines[1], cancel: cancel, cancelAfter: after}
}

func (e *endlessCapture) Read(p []byte) (int, error) {
	for e.buf.Len() < len(p) {
		e.seq++
		if e.seq == e.cancelAfter {
			e.cancel()
		}
		e.buf.WriteString(strings.Replace(e.line, `"sequence":2,`, fmt.Sprintf(`"sequence":%d,`, e.seq), 1) + "\n")
	}
	return e.buf.Read(p)
}

// seekingEndless is an endless capture that can seek, so Sanitize makes
// its first pass over it (which used to skip errors without end).
type seekingEndless struct{ *endlessCapture }

func (seekingEndless) Seek(int64, int) (int64, error) { return 0, nil }

func TestSanitizeContextStopsAtTheNextRecord(t *testing.T) {
	for _, seek := range []bool{false, true} {
		t.Run(fmt.Sprintf("seeker=%v", seek), func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var r io.Reader = newEndless(cancel, 500)
			if seek {
				r = seekingEndless{r.(*endlessCapture)}
			}
			done := make(chan error, 1)
			go func() {
				_, err := sanitize.SanitizeContext(ctx, r, "endless.jsonl", io.Discard, sanitize.Options{Home: "/home/u"})
				done <- err
			}()
			select {
			case err := <-done:
				if !errors.Is(err, context.Canceled) {
					t.Errorf("SanitizeContext after cancel: %v, want context.Canceled", err)
				}
			case <-time.After(5 * time.Second): // a hang guard, not a timing test
				t.Fatal("SanitizeContext did not stop after its context was cancelled")
			}
		})
	}
}

func TestSanitizeContextCancelledBeforeWritesNothing(t *testing.T) {
	ctx, cancel := context.WithCancelCause(context.Background())
	stop := errors.New("stopped by the test")
	cancel(stop)
	var out bytes.Buffer
	_, err := sanitize.SanitizeContext(ctx, strings.NewReader(exampleCapture), "run.jsonl", &out, sanitize.Options{Home: "/home/u"})
	if !errors.Is(err, stop) {
		t.Errorf("SanitizeContext on a cancelled context: %v, want its cause", err)
	}
	if out.Len() != 0 {
		t.Errorf("SanitizeContext on a cancelled context wrote %d bytes", out.Len())
	}
}

// failingWriter fails every write.
type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

// TestSanitizeStopsWithoutWaitingForInput gives Sanitize a pipe holding
// more records than its write buffer takes, and then nothing (the writer
// of the pipe stays open), and an output that fails: Sanitize must return
// the write's error, not wait for its read-ahead, which is inside a Read
// of the pipe for input that never comes.
func TestSanitizeStopsWithoutWaitingForInput(t *testing.T) {
	pr, pw := io.Pipe()
	defer pw.Close()
	lines := strings.Split(exampleCapture, "\n")
	go func() {
		var b strings.Builder
		b.WriteString(lines[0] + "\n")
		for seq := 2; b.Len() < 256<<10; seq++ {
			b.WriteString(strings.Replace(lines[1], `"sequence":2,`, fmt.Sprintf(`"sequence":%d,`, seq), 1) + "\n")
		}
		io.WriteString(pw, b.String())
	}()
	done := make(chan error, 1)
	go func() {
		_, err := sanitize.Sanitize(pr, "pipe", failingWriter{}, sanitize.Options{Home: "/home/dev"})
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "disk full") {
			t.Fatalf("Sanitize: %v, want the write's error", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Sanitize did not return after its output failed while its input stayed open")
	}
}
