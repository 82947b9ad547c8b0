// Package usermod is a user's own Claude stream-json parser, standing in
// for an outside project in minimize's tests. It knows nothing of evcap.
package usermod

import (
	"encoding/json"
	"fmt"
)

// DeltaText returns the text a stream-json line adds, "" for lines that add
// none. Its bug: a content_block_delta it does not know is an error, and
// Claude sends one signature_delta per thinking block.
func DeltaText(line []byte) (string, error) {
	var ev struct {
		Type  string `json:"type"`
		Event struct {
			Type  string `json:"type"`
			Delta struct {
				Type     string `json:"type"`
				Text     string `json:"text"`
				Thinking string `json:"thinking"`
			} `json:"delta"`
		} `json:"event"`
	}
	if err := json.Unmarshal(line, &ev); err != nil {
		return "", err
	}
	if ev.Type != "stream_event" || ev.Event.Type != "content_block_delta" {
		return "", nil
	}
	switch ev.Event.Delta.Type {
	case "text_delta":
		return ev.Event.Delta.Text, nil
	case "thinking_delta":
		return ev.Event.Delta.Thinking, nil
	}
	return "", fmt.Errorf("unknown delta type %q", ev.Event.Delta.Type)
}
