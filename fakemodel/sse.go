package fakemodel

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"
)

// obj is a JSON object whose keys keep the order they are written in
// (key, value, key, value, ...). Provider payloads read better, and goldens
// diff better, with "type" first; encoding/json would sort map keys.
type obj []any

// MarshalJSON writes the pairs in order.
func (o obj) MarshalJSON() ([]byte, error) {
	if len(o)%2 != 0 {
		return nil, fmt.Errorf("obj has an odd number of elements (%d)", len(o))
	}
	var b bytes.Buffer
	b.WriteByte('{')
	for i := 0; i < len(o); i += 2 {
		k, ok := o[i].(string)
		if !ok {
			return nil, fmt.Errorf("obj key %d is %T, not a string", i/2, o[i])
		}
		if i > 0 {
			b.WriteByte(',')
		}
		kb, _ := json.Marshal(k)
		b.Write(kb)
		b.WriteByte(':')
		vb, err := marshal(o[i+1])
		if err != nil {
			return nil, fmt.Errorf("obj key %q: %w", k, err)
		}
		b.Write(vb)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// marshal encodes v without escaping <, > and & (which encoding/json does
// by default and no provider does), so text with markup stays readable.
func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// sse writes Server-Sent Events, flushing after each so that the client sees
// every delta as it is produced. The first write error sticks and ends all
// later writes (the client has gone).
type sse struct {
	w     io.Writer
	flush func()
	// pause is slept after each delta event, to let a live renderer be seen
	// working; zero in tests.
	pause time.Duration
	err   error
}

func newSSE(w io.Writer, pause time.Duration) *sse {
	s := &sse{w: w, pause: pause, flush: func() {}}
	if f, ok := w.(http.Flusher); ok {
		s.flush = f.Flush
	}
	return s
}

// event writes one event; an empty name writes a data-only event (OpenAI
// Chat and Gemini streams carry no event names).
func (s *sse) event(name string, payload any) {
	if s.err != nil {
		return
	}
	data, err := marshal(payload)
	if err != nil {
		s.err = fmt.Errorf("encode %s event: %w", name, err)
		return
	}
	s.raw(name, data)
}

func (s *sse) raw(name string, data []byte) {
	if s.err != nil {
		return
	}
	var b bytes.Buffer
	if name != "" {
		b.WriteString("event: " + name + "\n")
	}
	b.WriteString("data: ")
	b.Write(data)
	b.WriteString("\n\n")
	if _, err := s.w.Write(b.Bytes()); err != nil {
		s.err = fmt.Errorf("write %s event: %w", name, err)
		return
	}
	s.flush()
}

// delta writes an event that carries a piece of streamed content, then pauses.
func (s *sse) delta(name string, payload any) {
	s.event(name, payload)
	if s.pause > 0 && s.err == nil {
		time.Sleep(s.pause)
	}
}
