package view_test

import (
	"bytes"
	"context"
	"errors"
	"testing"

	"github.com/evcap/evcap/view"
)

// TestWriteContext: a page stops at the next record once its context is
// done, with the context's cause; a live context writes the whole page.
func TestWriteContext(t *testing.T) {
	capt := syntheticCapture(t, 200)
	stop := errors.New("stopped by the test")
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(stop)
	var out bytes.Buffer
	st, err := view.WriteContext(ctx, &out, bytes.NewReader(capt), "cancelled.jsonl", view.Options{})
	if !errors.Is(err, stop) {
		t.Fatalf("cancelled: got %v, want the context's cause", err)
	}
	if st.Records != 0 {
		t.Errorf("cancelled before the first record, yet %d records were written", st.Records)
	}
	out.Reset()
	st, err = view.WriteContext(context.Background(), &out, bytes.NewReader(capt), "live.jsonl", view.Options{})
	if err != nil || st.Records != 200 {
		t.Fatalf("live: %d records, %v; want 200, nil", st.Records, err)
	}
}
