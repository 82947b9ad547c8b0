package source

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/evcap/evcap/envelope"
	"github.com/evcap/evcap/event"
	"github.com/evcap/evcap/provider"
	"github.com/evcap/evcap/providers"
)

// EventsAhead is how many records Events reads ahead of a capture to learn
// whether it holds normalized_out records. A recorded capture interleaves
// them with its native lines, so the first one comes within a few records.
const EventsAhead = 4096

// EventsOptions say how Events reads an input.
type EventsOptions struct {
	// Provider is "auto" (or "") to take the provider the input names or
	// shows, or the provider whose normalizer reads native lines (Choose
	// refuses one that plainly contradicts the input).
	Provider string
	// Warn receives what does not stop the reading, one line each starting
	// with "evcap: ": a torn last line, an invalid record, a gap the
	// capture recorded, a normalized_out payload that is not an event.
	// nil discards them.
	Warn io.Writer
	// Wrap, when set, is put between the input and its reader (a progress
	// display over the bytes read).
	Wrap func(io.Reader) io.Reader
}

// EventStream yields the events of one input in order, each with the
// moment it happened, for a caller that renders or accumulates them as
// an integration does: a capture's (or fixture's) normalized_out records
// when it holds any among its first EventsAhead records (a fixture's when
// it holds any at all), else its native_in lines, or raw output's lines,
// through the provider's normalizer.
type EventStream struct {
	// From is where the events come from: StageNormalizedOut for the
	// events a capture recorded, StageNativeIn for native lines
	// normalized as they are read (a capture's, or raw output's).
	From envelope.Stage
	// Provider is the provider whose normalizer reads the native lines;
	// "" when From is StageNormalizedOut.
	Provider string

	next    func() (time.Time, event.Event, error)
	invalid func() int
}

// Events reads in as events. It reads the input once, front to back: the
// records it reads ahead are handed out again in order.
func (in *Input) Events(o EventsOptions) (*EventStream, error) {
	warn := o.Warn
	if warn == nil {
		warn = io.Discard
	}
	r := in.Reader()
	if o.Wrap != nil {
		r = o.Wrap(r)
	}
	if in.Kind == KindRaw {
		nat, err := NewNative(r, in.Name, warn)
		if err != nil {
			return nil, err
		}
		nat.Live = in.Live
		name, n, err := normalizerFor(nat.Evidence(), o.Provider)
		if err != nil {
			return nil, err
		}
		s := &rawEvents{in: nat, n: n}
		return &EventStream{From: envelope.StageNativeIn, Provider: name, next: s.next,
			invalid: func() int { return nat.BadRecords }}, nil
	}
	recs := &capRecords{env: envelope.NewReader(r, in.Name, envelope.ReaderOptions{}), name: in.Name, warn: warn}
	limit := EventsAhead
	if in.Kind == KindFixture {
		limit = len(in.Fixture.Events) // in memory already; its derived records come last
	}
	hasNormalized, err := recs.lookAhead(limit)
	if err != nil {
		return nil, err
	}
	if hasNormalized {
		s := &recordedEvents{recs: recs}
		return &EventStream{From: envelope.StageNormalizedOut, next: s.next,
			invalid: func() int { return s.bad + recs.bad }}, nil
	}
	name, n, err := normalizerFor(RecordEvidence(in.Name, recs.ahead), o.Provider)
	if err != nil {
		return nil, err
	}
	s := &nativeRecordEvents{recs: recs, n: n}
	return &EventStream{From: envelope.StageNativeIn, Provider: name, next: s.next,
		invalid: func() int { return recs.bad }}, nil
}

// Next returns the next event and the moment it happened: its record's
// timestamp (a native line's, for the events normalized from it), never
// earlier than the one before; the zero time for raw output, which has
// no timestamps. io.EOF at the end.
func (s *EventStream) Next() (time.Time, event.Event, error) { return s.next() }

// Invalid is how many records were skipped as invalid so far: capture
// lines that are not valid records, and normalized_out payloads that are
// not events.
func (s *EventStream) Invalid() int { return s.invalid() }

// normalizerFor settles the provider (Choose) and makes its normalizer.
func normalizerFor(ev Evidence, flag string) (string, event.Normalizer, error) {
	if flag == "" {
		flag = "auto"
	}
	name, err := Choose(ev, flag, providers.Names())
	if err != nil {
		return "", nil, err
	}
	d, ok := providers.Lookup(name)
	if !ok {
		return "", nil, fmt.Errorf("unknown provider %q (known: %s)", name, strings.Join(providers.Names(), ", "))
	}
	return name, d.Normalizer(provider.Options{}), nil
}

// capRecords reads the records of a capture (or of a fixture, as Open
// hands them out), reporting bad lines as it goes; records read ahead are
// handed out again in order.
type capRecords struct {
	env   *envelope.Reader
	name  string
	warn  io.Writer
	ahead []*envelope.Record
	bad   int
}

// next returns the next valid record, or io.EOF.
func (r *capRecords) next() (*envelope.Record, error) {
	if len(r.ahead) > 0 {
		rec := r.ahead[0]
		r.ahead = r.ahead[1:]
		return rec, nil
	}
	for {
		rec, err := r.env.Next()
		var le *envelope.LineError
		if errors.As(err, &le) {
			fmt.Fprintln(r.warn, "evcap:", err)
			if !errors.Is(err, envelope.ErrTornLine) {
				r.bad++
			}
			continue
		}
		if err != nil && err != io.EOF {
			return nil, fmt.Errorf("read %s: %w", r.name, err)
		}
		return rec, err
	}
}

// lookAhead reads up to limit records ahead and reports whether one of
// them is a normalized_out record; it stops at the first.
func (r *capRecords) lookAhead(limit int) (bool, error) {
	var read []*envelope.Record
	defer func() { r.ahead = append(read, r.ahead...) }()
	for len(read) < limit {
		rec, err := r.next()
		if err == io.EOF {
			return false, nil
		}
		if err != nil {
			return false, err
		}
		read = append(read, rec)
		if rec.Stage == envelope.StageNormalizedOut {
			return true, nil
		}
	}
	return false, nil
}

// recordedEvents reads the events a capture recorded as normalized_out.
type recordedEvents struct {
	recs  *capRecords
	clock recordClock
	bad   int
}

func (s *recordedEvents) next() (time.Time, event.Event, error) {
	for {
		rec, err := s.recs.next()
		if err != nil {
			return time.Time{}, event.Event{}, err
		}
		if rec.Stage != envelope.StageNormalizedOut {
			continue
		}
		var e event.Event
		if err := json.Unmarshal(rec.Payload, &e); err != nil {
			fmt.Fprintf(s.recs.warn, "evcap: %s: sequence %d: normalized_out payload is not an event: %v\n",
				s.recs.name, rec.Sequence, err)
			s.bad++
			continue
		}
		return s.clock.at(rec.Timestamp), e, nil
	}
}

// nativeRecordEvents normalizes a capture's native_in records as it goes,
// each event stamped with the time of the line it came from.
type nativeRecordEvents struct {
	recs  *capRecords
	n     event.Normalizer
	clock recordClock
	queue []event.Event
	at    time.Time
	ended bool
}

func (s *nativeRecordEvents) next() (time.Time, event.Event, error) {
	for len(s.queue) == 0 {
		if s.ended {
			return time.Time{}, event.Event{}, io.EOF
		}
		rec, err := s.recs.next()
		if err == io.EOF {
			s.ended = true
			s.queue = s.n.End()
			continue
		}
		if err != nil {
			return time.Time{}, event.Event{}, err
		}
		switch {
		case rec.Stage != envelope.StageNativeIn, rec.EventType == envelope.EventStderr:
			continue
		case rec.EventType == envelope.EventGap:
			fmt.Fprintf(s.recs.warn, "evcap: %s: sequence %d: the capture dropped bytes here (gap): %s\n",
				s.recs.name, rec.Sequence, CompactPayload(rec.Payload))
			continue
		}
		s.at = s.clock.at(rec.Timestamp)
		s.queue = s.n.Line(rec.Sequence, envelope.DecodeNativeLine(rec.EventType, rec.Payload))
	}
	e := s.queue[0]
	s.queue = s.queue[1:]
	return s.at, e, nil
}

// rawEvents normalizes raw output as it goes, queueing the events each
// line gives. Raw output has no timestamps.
type rawEvents struct {
	in    *Native
	n     event.Normalizer
	queue []event.Event
	ended bool
}

func (s *rawEvents) next() (time.Time, event.Event, error) {
	for len(s.queue) == 0 {
		if s.ended {
			return time.Time{}, event.Event{}, io.EOF
		}
		ref, line, err := s.in.Next()
		if err == io.EOF {
			s.ended = true
			s.queue = s.n.End()
			continue
		}
		if err != nil {
			return time.Time{}, event.Event{}, err
		}
		s.queue = s.n.Line(ref, line)
	}
	e := s.queue[0]
	s.queue = s.queue[1:]
	return time.Time{}, e, nil
}

// recordClock turns record timestamps into times that never go backwards
// (a chat renderer's rate limiter needs that); a timestamp that does not
// parse, or that is earlier than the one before, counts as the one before.
type recordClock struct{ last time.Time }

func (c *recordClock) at(ts string) time.Time {
	t, _, err := envelope.ParseTimestamp(strings.TrimSpace(ts))
	if err == nil && t.After(c.last) {
		c.last = t
	}
	return c.last
}
