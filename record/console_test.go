package record

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/evcap/evcap/event"
)

// TestConsoleBuffersRendering checks that the renderer's writes wait in
// the console until a flush, that any other write to the console puts them
// out first (so the order on the console is the order of the writes), and
// that an error writing them reaches the renderer's next write.
func TestConsoleBuffersRendering(t *testing.T) {
	var out strings.Builder
	c := newConsole(&out, false, func() string { return "status" })
	r := rendered{c}
	r.Write([]byte("one "))
	r.Write([]byte("two\n"))
	if out.Len() != 0 {
		t.Fatalf("rendered text was written before a flush: %q", out.String())
	}
	c.Write([]byte("child stderr\n"))
	r.Write([]byte("three\n"))
	if got, want := out.String(), "one two\nchild stderr\n"; got != want {
		t.Fatalf("console holds %q, want %q", got, want)
	}
	c.flush()
	if got, want := out.String(), "one two\nchild stderr\nthree\n"; got != want {
		t.Fatalf("after flush the console holds %q, want %q", got, want)
	}
	r.Write([]byte(strings.Repeat("x", renderBuffer)))
	if out.Len() < renderBuffer {
		t.Fatalf("%d bytes of rendered text are still waiting", renderBuffer)
	}

	failing := newConsole(failWriter{}, false, nil)
	fr := rendered{failing}
	if _, err := fr.Write([]byte("a\n")); err != nil {
		t.Fatalf("a buffered write failed: %v", err)
	}
	failing.flush()
	if _, err := fr.Write([]byte("b\n")); err == nil {
		t.Fatal("the renderer's write after a failed flush returned no error")
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("console closed") }

// TestStatsTokens checks the token count of the status line and of
// capture.end: the latest figure of each model call (a call reports its
// usage more than once) plus the latest cumulative figure, against the sum
// recomputed from every event seen so far after each one.
func TestStatsTokens(t *testing.T) {
	var s stats
	latest := map[string]int64{}
	var cumulative int64
	for i := range 500 {
		id := fmt.Sprintf("msg_%d", (i*7)%37)
		u := &event.Usage{InputTokens: int64(i * 3), OutputTokens: int64(1000 - i)}
		if i%50 == 49 {
			u.Cumulative = true
			cumulative = u.Total()
		} else {
			latest[id] = u.Total()
		}
		s.add(event.Event{Kind: event.KindUsage, MessageID: id, Usage: u})
		want := cumulative
		for _, v := range latest {
			want += v
		}
		if got := s.tokens.Load(); got != want {
			t.Fatalf("after event %d: %d tokens, want %d", i, got, want)
		}
	}
}
