// Package parse reads Claude Code's stream-json output (claude -p
// --output-format stream-json) into chatbridge's own events. It knows
// nothing of evcap.
package parse

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
)

// Event is one thing the chat shows.
type Event struct {
	Kind string `json:"kind"` // session, delta, block_end, text, tool, result, note
	Text string `json:"text,omitempty"`
	Tool string `json:"tool,omitempty"`
}

type line struct {
	Type    string `json:"type"`
	Subtype string `json:"subtype"`
	Session string `json:"session_id"`
	Result  string `json:"result"`
	Event   struct {
		Type  string `json:"type"`
		Delta struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"delta"`
	} `json:"event"`
	Message struct {
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
			Name string `json:"name"`
		} `json:"content"`
	} `json:"message"`
}

// Line parses one line of the stream. Lines that are not JSON become a
// "note" event: the CLI prints warnings there too.
func Line(b []byte) ([]Event, error) {
	b = bytes.TrimSpace(b)
	if len(b) == 0 {
		return nil, nil
	}
	if b[0] != '{' {
		return []Event{{Kind: "note", Text: string(b)}}, nil
	}
	var l line
	if err := json.Unmarshal(b, &l); err != nil {
		return nil, fmt.Errorf("parse stream-json line: %w", err)
	}
	switch l.Type {
	case "system":
		if l.Subtype == "init" {
			return []Event{{Kind: "session", Text: l.Session}}, nil
		}
	case "stream_event":
		switch l.Event.Type {
		case "content_block_delta":
			if l.Event.Delta.Type == "text_delta" {
				return []Event{{Kind: "delta", Text: l.Event.Delta.Text}}, nil
			}
		case "content_block_stop":
			return []Event{{Kind: "block_end"}}, nil
		}
	case "assistant":
		var out []Event
		for _, c := range l.Message.Content {
			switch c.Type {
			case "text":
				out = append(out, Event{Kind: "text", Text: c.Text})
			case "tool_use":
				out = append(out, Event{Kind: "tool", Tool: c.Name})
			}
		}
		return out, nil
	case "result":
		return []Event{{Kind: "result", Text: l.Subtype}}, nil
	}
	return nil, nil
}

// Stream reads the whole stream from r and calls fn for each event.
func Stream(r io.Reader, fn func(Event) error) error {
	if os.Getenv("CHATBRIDGE_PLANTED_BUG") == "1" {
		return streamWholeReads(r, fn)
	}
	br := bufio.NewReader(r)
	for {
		b, err := br.ReadBytes('\n')
		if len(b) > 0 {
			if perr := emit(b, fn); perr != nil {
				return perr
			}
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// streamWholeReads is the planted bug the tests must catch (switched on
// by CHATBRIDGE_PLANTED_BUG=1): it takes every Read to end at a line end.
// A line torn across two reads is parsed as two broken halves.
func streamWholeReads(r io.Reader, fn func(Event) error) error {
	buf := make([]byte, 64<<10)
	for {
		n, err := r.Read(buf)
		for _, b := range bytes.Split(buf[:n], []byte("\n")) {
			if perr := emit(b, fn); perr != nil {
				return perr
			}
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

func emit(b []byte, fn func(Event) error) error {
	evs, err := Line(b)
	if err != nil {
		return err
	}
	for _, e := range evs {
		if err := fn(e); err != nil {
			return err
		}
	}
	return nil
}
