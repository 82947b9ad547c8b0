package corpustest

import (
	"bytes"
	"errors"
	"io"
	"os"
	"testing"
	"time"

	"github.com/evcap/evcap/capture"
	"github.com/evcap/evcap/envelope"
	"github.com/evcap/evcap/event"
	"github.com/evcap/evcap/render/legacy"
)

// Recording says how Capture records one corpus run. Every field that
// reaches the capture's bytes is explicit, so that each test keeps the
// capture its goldens were made from.
type Recording struct {
	// Native is the file of native lines (stdout JSONL or raw SSE).
	Native string
	// Stderr, when set and the file exists, is recorded line by line
	// (blank lines left out) after the native lines.
	Stderr string
	// Begin is the capture.start record; Begin.Provider picks the
	// normalizer.
	Begin capture.Start
	// CaptureID is the envelope's capture id.
	CaptureID string
	// Now is the clock of the envelope and the capturer (see Clock).
	Now func() time.Time
	// SetSession, when true, sets the capture's session (turn "1") from the
	// first init event that names one.
	SetSession bool
	// ExitCode goes into capture.end (a clean end).
	ExitCode int
	// Rewrite, when set, is applied to every native and stderr line before
	// it is recorded (to move a capture to another machine's paths).
	Rewrite func([]byte) []byte
}

// Clock returns a clock that starts at start and advances by step at every
// reading (the first reading is start+step).
func Clock(start time.Time, step time.Duration) func() time.Time {
	now := start
	return func() time.Time { now = now.Add(step); return now }
}

// Capture records a corpus run through capture.New as an integration
// would: capture.start, each native line with the normalized events its
// provider's normalizer derives from it and the legacy markers derived from
// those, the end of the stream, the stderr lines and capture.end. The same
// Recording gives the same bytes on every run.
func Capture(t testing.TB, r Recording) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := envelope.NewWriter(&buf, envelope.WriterOptions{CaptureID: r.CaptureID, Now: r.Now, FlushInterval: -1})
	c := capture.New(w, capture.Options{Provider: r.Begin.Provider, Now: r.Now})
	c.Begin(r.Begin)
	n := NewNormalizer(t, r.Begin.Provider)
	der := legacy.New()
	emit := func(evs []event.Event) {
		for _, e := range evs {
			if r.SetSession && e.Kind == event.KindInit && e.SessionID != "" {
				c.SetSession(e.SessionID, "1")
			}
			c.Normalized(e)
			for _, m := range der.Event(e) {
				c.Legacy([]byte(m.Line), m.Cause)
			}
		}
	}
	rewrite := func(line []byte) []byte {
		if r.Rewrite != nil {
			return r.Rewrite(line)
		}
		return line
	}
	EachLine(t, r.Native, func(_ int64, line []byte) {
		// A copy: a normalizer may keep a line (an SSE event spanning
		// lines) after the reader has reused its buffer.
		line = rewrite(bytes.Clone(line))
		emit(n.Line(c.Native(line), line))
	})
	emit(n.End())
	for _, m := range der.End() {
		c.Legacy([]byte(m.Line), m.Cause)
	}
	if r.Stderr != "" {
		if _, err := os.Stat(r.Stderr); err == nil {
			EachLine(t, r.Stderr, func(_ int64, line []byte) {
				if len(line) > 0 {
					c.Stderr(rewrite(line))
				}
			})
		}
	}
	code := r.ExitCode
	if err := c.Close(capture.End{ExitCode: &code, CleanEnd: true}); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// Records reads every record of the capture at path, failing the test on
// a line that is not a valid record.
func Records(t testing.TB, path string) []*envelope.Record {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rd := envelope.NewReader(f, path, envelope.ReaderOptions{})
	var out []*envelope.Record
	for {
		rec, err := rd.Next()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatalf("read %s: %v", path, err)
		}
		out = append(out, rec)
	}
}
