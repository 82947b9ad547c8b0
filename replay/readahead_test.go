package replay

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/evcap/evcap/envelope"
)

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

// syntheticRecords is a capture of n native_in records (synthetic lines),
// every tenth one with a payload of big bytes.
func syntheticRecords(t *testing.T, n, big int) []byte {
	t.Helper()
	var out bytes.Buffer
	w := envelope.NewWriter(&out, envelope.WriterOptions{CaptureID: "01KQ0000000000000000000000", FlushInterval: -1})
	for i := range n {
		text := fmt.Sprintf("line %d", i)
		if i%10 == 9 {
			text = strings.Repeat("x", big)
		}
		payload := envelope.AppendJSONString([]byte(`{"type":"synthetic","text":`), text)
		payload = append(payload, '}')
		if _, err := w.Write(&envelope.Record{Provider: "synthetic", Stage: envelope.StageNativeIn, EventType: "synthetic", Payload: payload}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// TestReadAheadBounded: the records read ahead and not yet taken never hold
// more than aheadBytes of payload, or one record when it is larger; they
// come out in file order; stop ends the reading of the capture.
func TestReadAheadBounded(t *testing.T) {
	const big = 3 << 20 // larger than aheadBytes
	capt := syntheticRecords(t, 40, big)
	cr := &countingReader{r: bytes.NewReader(capt)}
	a := newReadAhead(context.Background(), envelope.NewReader(cr, "synthetic", envelope.ReaderOptions{}))
	var prev int64
	for i := 0; ; i++ {
		rec, err := a.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if rec.Sequence <= prev {
			t.Fatalf("record %d: sequence %d after %d", i, rec.Sequence, prev)
		}
		prev = rec.Sequence
		a.mu.Lock()
		used := a.used
		a.mu.Unlock()
		if used > aheadBytes+big+64 {
			t.Fatalf("record %d: %d payload bytes in flight, want at most %d", i, used, aheadBytes+big+64)
		}
	}
	if prev != 40 {
		t.Errorf("read up to sequence %d, want 40", prev)
	}
	a.stop()

	cr = &countingReader{r: bytes.NewReader(capt)}
	a = newReadAhead(context.Background(), envelope.NewReader(cr, "synthetic", envelope.ReaderOptions{}))
	if _, err := a.Next(); err != nil {
		t.Fatal(err)
	}
	a.stop()
	read := cr.n.Load()
	if read >= int64(len(capt)) {
		t.Errorf("stopped after the first record, yet the whole capture (%d bytes) was read", read)
	}
	a.stop() // a second stop is harmless
	if cr.n.Load() != read {
		t.Error("the capture was read after stop returned")
	}
}
