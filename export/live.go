package export

import (
	"context"
	"fmt"
	"sync"

	"github.com/evcap/evcap/envelope"
)

// Live exports a recording while it runs: each record is folded into the
// trace as it is written, and each span is sent as soon as it ends (a tool
// call when its result arrives, a model turn when its usage arrives). It
// has the shape of record.Observer. Sending goes through a live Sender: a
// bounded queue and no retries, so a slow or absent collector never holds
// the agent back; what could not be sent is counted in the capture's end
// notes.
type Live struct {
	mu     sync.Mutex
	b      *Builder
	sender *Sender
	where  string
	closed bool
}

// NewLive starts a live export through sender (made with Live set);
// where names the endpoint in notes and warnings.
func NewLive(sender *Sender, where string, opts Options) *Live {
	l := &Live{sender: sender, where: where}
	l.b = NewBuilder(opts, func(s *Span) { sender.Send(context.Background(), s) })
	return l
}

// Observe folds one written record into the trace. It does not block.
func (l *Live) Observe(rec *envelope.Record) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return
	}
	// A record the Builder cannot read (a normalized payload that is not
	// an event) only loses its span; the capture keeps it.
	_ = l.b.Add(rec)
}

// Notes says what the export lost so far, for capture.end: spans dropped
// because the queue was full, export requests that failed.
func (l *Live) Notes() []string {
	var notes []string
	if n := l.sender.Dropped(); n > 0 {
		notes = append(notes, fmt.Sprintf("otlp export to %s: %d spans dropped (queue full: the collector did not keep up)", l.where, n))
	}
	if n, err := l.sender.Failures(); n > 0 {
		notes = append(notes, fmt.Sprintf("otlp export to %s: %d export requests failed so far (first: %v); the capture is complete, export it again with evcap export", l.where, n, err))
	}
	return notes
}

// Close ends the trace (the root span and anything still open) and sends
// what is queued, waiting at most until ctx is done. The error says what
// could not be sent; the recording itself is unaffected by it.
func (l *Live) Close(ctx context.Context) error {
	l.mu.Lock()
	if !l.closed {
		l.closed = true
		l.b.Close()
	}
	l.mu.Unlock()
	err := l.sender.Close(ctx)
	if n := l.sender.Dropped(); n > 0 && err == nil {
		err = fmt.Errorf("%d spans dropped (queue full)", n)
	}
	return err
}
