package envelope

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// parallelSteps reads data with a ParallelReader of the given workers and
// chunk size, as oldSteps does with the old reader.
func parallelSteps(data []byte, opts ReaderOptions, wrap func(io.Reader) io.Reader, workers, size int) []step {
	r := newParallelReader(context.Background(), wrap(bytes.NewReader(data)), "cap.jsonl", ParallelOptions{ReaderOptions: opts, Workers: workers}, size)
	defer r.Close()
	var out []step
	for {
		rec, err := r.Next()
		if err == io.EOF {
			return out
		}
		if rec != nil {
			rec = copyExact(rec)
		}
		out = append(out, toStep(rec, err, r.Line()))
		if err != nil && !errors.As(err, new(*LineError)) {
			// A read error ends a ParallelReader's stream.
			if _, again := r.Next(); fmt.Sprint(again) != fmt.Sprint(err) {
				out = append(out, step{Err: fmt.Sprintf("after the read error: %v", again)})
			}
			return out
		}
	}
}

// untilReadError is steps up to the first error that is not a line's own
// (a read error), which the old reader reads on after and a
// ParallelReader does not.
func untilReadError(steps []step) []step {
	for i, s := range steps {
		if s.Err != "" && s.File == "" {
			return steps[:i+1]
		}
	}
	return steps
}

// parallelSizes are the chunk sizes the differential tests read with:
// tiny (a chunk end in nearly every line, and lines over many chunks),
// small, and the real one.
var parallelSizes = []int{16, 700, parallelChunk}

// sameAsOldParallel fails t when a ParallelReader, with one or three
// parsers and each chunk size, returns other records or errors than the
// old reader on data read through wrap.
func sameAsOldParallel(t testing.TB, name string, data []byte, opts ReaderOptions, wrap func(io.Reader) io.Reader) {
	t.Helper()
	want := untilReadError(oldSteps(data, opts, wrap))
	for _, workers := range []int{1, 3} {
		for _, size := range parallelSizes {
			if d := diff(want, parallelSteps(data, opts, wrap, workers, size)); d != "" {
				t.Fatalf("%s (ParallelReader, %d parsers, chunks of %d): differs from the old reader (-old +new):\n%s", name, workers, size, d)
			}
		}
	}
}

// TestParallelReaderBounded: a ParallelReader keeps at most its chunks
// and one long line in memory ahead of the caller, and Close stops the
// reading of the capture.
func TestParallelReaderBounded(t *testing.T) {
	var capt bytes.Buffer
	for i := range 12000 {
		fmt.Fprintf(&capt, `{"schemaVersion":1,"captureId":"C","sequence":%d,"timestamp":"t","provider":"p","sessionId":"","turnId":"","stage":"native_in","eventType":"e","payload":{"t":"%s"},"redactions":[]}`+"\n", i+1, strings.Repeat("x", 200))
	}
	cr := &countingReader{r: bytes.NewReader(capt.Bytes())}
	r := NewParallelReader(context.Background(), cr, "cap.jsonl", ParallelOptions{Workers: 2})
	if _, err := r.Next(); err != nil {
		t.Fatal(err)
	}
	// The reading goroutine fills every free chunk, then waits.
	deadline := time.Now().Add(5 * time.Second)
	prev := int64(-1)
	for time.Now().Before(deadline) {
		n := cr.n.Load()
		if n == prev {
			break
		}
		prev = n
		time.Sleep(50 * time.Millisecond)
	}
	chunks := 2*2 + 6
	if most := int64(chunks * parallelChunk); prev > most {
		t.Errorf("read %d bytes ahead of the first record, want at most %d (%d chunks)", prev, most, chunks)
	}
	if prev >= int64(capt.Len()) {
		t.Errorf("the whole capture (%d bytes) was read ahead of the first record", capt.Len())
	}
	r.Close()
	read := cr.n.Load()
	r.Close() // a second Close is harmless
	if cr.n.Load() != read {
		t.Error("the capture was read after Close returned")
	}
	if _, err := r.Next(); err == nil {
		t.Error("Next after Close returned a record")
	}
}

// TestParallelReaderContext: once ctx is done, Next returns its cause
// after the records read before.
func TestParallelReaderContext(t *testing.T) {
	ctx, cancel := context.WithCancelCause(context.Background())
	stop := errors.New("stopped")
	cancel(stop)
	r := NewParallelReader(ctx, strings.NewReader(`{"a":1}`+"\n"), "cap.jsonl", ParallelOptions{})
	defer r.Close()
	for range 3 {
		if _, err := r.Next(); !errors.Is(err, stop) {
			t.Fatalf("Next after cancel: %v, want %v", err, stop)
		}
	}
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n atomic.Int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n.Add(int64(n))
	return n, err
}

// TestKnownStage: every stage is known by its name, and nothing else.
func TestKnownStage(t *testing.T) {
	for _, st := range Stages() {
		if got, ok := knownStage([]byte(st)); !ok || got != st {
			t.Errorf("knownStage(%q) = %q, %v", st, got, ok)
		}
	}
	for _, bad := range []string{"", "native", "native_inx", "Meta"} {
		if got, ok := knownStage([]byte(bad)); ok {
			t.Errorf("knownStage(%q) = %q, true", bad, got)
		}
	}
}

// heldCapture is n native_in records whose payloads say their sequence
// (and are padded to about 300 bytes), so that a payload read into again
// shows.
func heldCapture(n int) []byte {
	var b bytes.Buffer
	for i := range n {
		fmt.Fprintf(&b, `{"schemaVersion":1,"captureId":"C","sequence":%d,"timestamp":"t","provider":"p","sessionId":"","turnId":"","stage":"native_in","eventType":"e","payload":{"n":%d,"t":"%s"},"redactions":[]}`+"\n", i+1, i+1, strings.Repeat("x", i%300))
	}
	return b.Bytes()
}

// TestParallelReaderOwned: a line longer than the reader keeps buffers
// for is read into a buffer of its own, which is never read into again:
// its record, and the records read with it, are Owned and keep their
// bytes for good; records of ordinary chunks are not Owned.
func TestParallelReaderOwned(t *testing.T) {
	var b bytes.Buffer
	b.Write(heldCapture(50))
	fmt.Fprintf(&b, `{"schemaVersion":1,"captureId":"C","sequence":51,"timestamp":"t","provider":"p","sessionId":"","turnId":"","stage":"native_in","eventType":"e","payload":{"t":"%s"},"redactions":[]}`+"\n", strings.Repeat("y", parallelKeep+100))
	rest := heldCapture(2000)
	b.Write(bytes.ReplaceAll(rest, []byte(`"sequence":`), []byte(`"sequence":1`)))
	r := newParallelReader(context.Background(), bytes.NewReader(b.Bytes()), "cap.jsonl", ParallelOptions{Workers: 1}, 700)
	defer r.Close()
	var kept [][]byte
	var want []string
	owned := 0
	for {
		rec, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if r.Owned() {
			owned++
			kept = append(kept, rec.Payload)
			want = append(want, string(rec.Payload))
		} else if rec.Sequence == 51 {
			t.Fatal("the long line's record is not Owned")
		}
	}
	if owned == 0 || owned > 3 {
		t.Fatalf("%d records Owned, want the long line's and at most the two read with it", owned)
	}
	for i, p := range kept {
		if string(p) != want[i] {
			t.Errorf("an Owned payload changed after the reading went on (%d bytes)", len(p))
		}
	}
}

// seekChunky reads a bytes.Reader in pseudo-random pieces (zero-length
// ones too) and can seek: ParallelReader's longLine path, with reads that
// end anywhere.
type seekChunky struct {
	r *bytes.Reader
	n uint64
}

func (c *seekChunky) Read(p []byte) (int, error) {
	c.n = c.n*6364136223846793005 + 1442695040888963407
	k := int(c.n>>33) % 3000
	if k == 0 {
		return 0, nil
	}
	return c.r.Read(p[:min(k, len(p))])
}

func (c *seekChunky) Seek(off int64, whence int) (int64, error) { return c.r.Seek(off, whence) }

// failAt fails the first read that reaches offset n of a bytes.Reader,
// once (as failAfter does, but by offset, so that reading a part again
// after a seek back does not move the error), and can seek.
type failAt struct {
	r      *bytes.Reader
	n      int64
	failed bool
}

func (f *failAt) Read(p []byte) (int, error) {
	pos, _ := f.r.Seek(0, io.SeekCurrent)
	if f.failed || pos > f.n {
		return f.r.Read(p)
	}
	if pos == f.n {
		f.failed = true
		return 0, errInjected
	}
	return f.r.Read(p[:min(int64(len(p)), f.n-pos)])
}

func (f *failAt) Seek(off int64, whence int) (int64, error) { return f.r.Seek(off, whence) }

// TestParallelReaderLongLineSeek: where the capture can seek, a line
// longer than a chunk is found first and read again into a buffer of its
// length; the records and errors are still the old reader's, through
// reads that end anywhere and read errors before, inside and after a long
// line (the chunk sizes of 16 and 700 bytes make every line or most of
// them long).
func TestParallelReaderLongLineSeek(t *testing.T) {
	good := func(seq int, text string) string {
		return fmt.Sprintf(`{"schemaVersion":1,"captureId":"C","sequence":%d,"timestamp":"t","provider":"p","sessionId":"","turnId":"","stage":"native_in","eventType":"e","payload":{"t":"%s"},"redactions":[]}`, seq, text)
	}
	sizes := []int{10, 5000, 20, 300 << 10, 7, 700, 3 * parallelChunk, 1}
	if raceEnabled {
		sizes = slices.DeleteFunc(sizes, func(n int) bool { return n > 300<<10 }) // the race detector slows the 16-byte chunks tenfold
	}
	var long strings.Builder
	for i, n := range sizes {
		long.WriteString(good(i+1, strings.Repeat("x", n)) + "\n")
	}
	inputs := map[string][]byte{
		"long lines": []byte(long.String()),
		"long torn":  []byte(strings.TrimSuffix(long.String(), "\n")),
		"bad long":   []byte(good(1, "a") + "\n" + strings.Repeat("y", 2000) + "\n" + good(3, "c") + "\n"),
	}
	for name, data := range inputs {
		sameAsOldParallel(t, name+" / seekable pieces", data, ReaderOptions{}, func(r io.Reader) io.Reader {
			return &seekChunky{r: r.(*bytes.Reader), n: 3}
		})
		sameAsOldParallel(t, name+" / cannot seek", data, ReaderOptions{}, func(r io.Reader) io.Reader {
			return badSeeker{r}
		})
		for _, at := range []int{1, 300, len(data) / 3, len(data) / 2, len(data) - 1} {
			sameAsOldParallel(t, fmt.Sprintf("%s / seekable, failing at %d", name, at), data, ReaderOptions{}, func(r io.Reader) io.Reader {
				return &failAt{r: r.(*bytes.Reader), n: int64(at)}
			})
		}
	}
}

// badSeeker is a reader whose Seek always fails, as a pipe's does: the
// long lines are read in blocks.
type badSeeker struct{ io.Reader }

func (badSeeker) Seek(int64, int) (int64, error) { return 0, errors.New("illegal seek") }

// changing is a capture that is rewritten while it is read: the first
// seek back to an offset finds other bytes.
type changing struct {
	r     *bytes.Reader
	after []byte
}

func (c *changing) Read(p []byte) (int, error) { return c.r.Read(p) }

func (c *changing) Seek(off int64, whence int) (int64, error) {
	if c.after != nil && whence == io.SeekStart {
		pos, _ := c.r.Seek(0, io.SeekCurrent)
		c.r = bytes.NewReader(c.after)
		c.r.Seek(pos, io.SeekStart)
		c.after = nil
	}
	return c.r.Seek(off, whence)
}

// TestParallelReaderLongLineChanged: a long line whose bytes are not the
// same when read again (the capture was rewritten meanwhile) ends the
// stream with a read error after the records before it, rather than
// giving lines split where no newline is.
func TestParallelReaderLongLineChanged(t *testing.T) {
	first := `{"schemaVersion":1,"captureId":"C","sequence":1,"timestamp":"t","provider":"p","sessionId":"","turnId":"","stage":"native_in","eventType":"e","payload":{},"redactions":[]}` + "\n"
	line := strings.Repeat("z", 5000) + "\n"
	before := []byte(first + line)
	after := []byte(first + line[:2000] + "\n" + line[2001:])
	r := newParallelReader(context.Background(), &changing{r: bytes.NewReader(before), after: after}, "cap.jsonl", ParallelOptions{Workers: 1}, 700)
	defer r.Close()
	if rec, err := r.Next(); err != nil || rec.Sequence != 1 {
		t.Fatalf("first record: %v, %v", rec, err)
	}
	_, err := r.Next()
	if !errors.Is(err, errChanged) {
		t.Fatalf("Next after the changed line: %v, want %v", err, errChanged)
	}
	// It names the file and where the line starts (after the first one).
	if want := fmt.Sprintf("cap.jsonl: read: the line at byte %d: ", len(first)); !strings.HasPrefix(err.Error(), want) {
		t.Errorf("error %q, want it to start %q", err, want)
	}
}
