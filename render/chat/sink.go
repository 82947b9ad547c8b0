package chat

import (
	"context"
	"fmt"
)

// Sink is a chat backend: it posts a message and edits it. Send returns the
// id Edit needs.
type Sink interface {
	Send(ctx context.Context, text string) (id string, err error)
	Edit(ctx context.Context, id, text string) error
}

// Delivery applies operations to a Sink, remembering the message id. When
// the backend rejects an edit, the rest of the progress edits are skipped
// and the final answer is sent as a new message instead, so the reader
// always gets it. Delivery does not wait for an Op's time; a live driver
// does that before calling Apply.
type Delivery struct {
	Sink Sink

	id     string
	broken error // the edit error that stopped progress edits
}

// Apply performs op. It returns an error when a send fails or when the
// final answer could not be delivered in any way; a rejected progress edit
// is not an error (it is reported by Broken).
func (d *Delivery) Apply(ctx context.Context, op Op) error {
	if op.Kind == OpSend || d.id == "" {
		id, err := d.Sink.Send(ctx, op.Text)
		if err != nil {
			return fmt.Errorf("chat: send at %dms: %w", op.At.Milliseconds(), err)
		}
		d.id = id
		return nil
	}
	if d.broken != nil && !op.Final {
		return nil
	}
	err := d.Sink.Edit(ctx, d.id, op.Text)
	if err == nil {
		return nil
	}
	if d.broken == nil {
		d.broken = err
	}
	if !op.Final {
		return nil
	}
	if _, serr := d.Sink.Send(ctx, op.Text); serr != nil {
		return fmt.Errorf("chat: final answer at %dms: edit failed (%v), send failed: %w", op.At.Milliseconds(), err, serr)
	}
	return nil
}

// Broken returns the edit error that made the Delivery stop editing, or nil.
func (d *Delivery) Broken() error { return d.broken }
