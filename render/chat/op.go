package chat

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"time"
)

// OpKind is what an operation does to the chat message.
type OpKind string

// The operations.
const (
	// OpSend posts the message (the first operation of a run).
	OpSend OpKind = "send"
	// OpEdit replaces the text of the posted message.
	OpEdit OpKind = "edit"
)

// Op is one operation on the chat message.
type Op struct {
	Kind OpKind
	// At is when the operation is due, counted from the first event.
	At time.Duration
	// Time is the same moment on the caller's clock, for a live driver
	// that waits until an operation is due.
	Time time.Time
	Text string
	// Final marks the operation that carries the final answer.
	Final bool
}

// opJSON is the JSONL form: {"op":"edit","at":1200,"text":"…"} with at in
// milliseconds; "final":true on the final answer.
type opJSON struct {
	Op    OpKind `json:"op"`
	At    int64  `json:"at"`
	Text  string `json:"text"`
	Final bool   `json:"final,omitempty"`
}

// MarshalJSON writes the JSONL form of an Op.
func (o Op) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // json.Marshal would turn < > & into \u003c…
	if err := enc.Encode(opJSON{Op: o.Kind, At: o.At.Milliseconds(), Text: o.Text, Final: o.Final}); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// WriteJSONL writes ops to w, one JSON object per line. HTML characters
// are not escaped, so the text reads as it will be shown.
func WriteJSONL(w io.Writer, ops []Op) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for i, op := range ops {
		if err := enc.Encode(op); err != nil {
			return fmt.Errorf("chat: write op %d (%s at %dms): %w", i, op.Kind, op.At.Milliseconds(), err)
		}
	}
	return nil
}
