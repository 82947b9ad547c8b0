package fakemodel

import "encoding/json"

// writeAnthropic streams a as an Anthropic Messages response: message_start,
// one content block per thinking/text/tool_use (start, deltas, stop),
// message_delta with the stop reason and output usage, message_stop.
// Thinking blocks get a signature_delta, which Claude Code requires.
func writeAnthropic(s *sse, a *answer) {
	msgID := "msg_fake_" + a.id
	s.event("message_start", obj{
		"type", "message_start",
		"message", obj{
			"id", msgID, "type", "message", "role", "assistant", "model", a.model,
			"content", []any{}, "stop_reason", nil, "stop_sequence", nil,
			"usage", obj{"input_tokens", a.inputTokens, "cache_creation_input_tokens", 0, "cache_read_input_tokens", 0, "output_tokens", 1},
		},
	})
	s.event("ping", obj{"type", "ping"})
	index := 0
	block := func(start obj, deltas []obj) {
		s.event("content_block_start", obj{"type", "content_block_start", "index", index, "content_block", start})
		for _, d := range deltas {
			s.delta("content_block_delta", obj{"type", "content_block_delta", "index", index, "delta", d})
		}
		s.event("content_block_stop", obj{"type", "content_block_stop", "index", index})
		index++
	}
	if len(a.thinking) > 0 {
		var ds []obj
		for _, c := range a.thinking {
			ds = append(ds, obj{"type", "thinking_delta", "thinking", c})
		}
		ds = append(ds, obj{"type", "signature_delta", "signature", "ZmFrZW1vZGVsLXNpZ25hdHVyZQ=="})
		block(obj{"type", "thinking", "thinking", "", "signature", ""}, ds)
	}
	if len(a.text) > 0 {
		var ds []obj
		for _, c := range a.text {
			ds = append(ds, obj{"type", "text_delta", "text", c})
		}
		block(obj{"type", "text", "text", ""}, ds)
	}
	for _, c := range a.calls {
		var ds []obj
		for _, p := range chunk(c.args, a.argChunks) {
			ds = append(ds, obj{"type", "input_json_delta", "partial_json", p})
		}
		block(obj{"type", "tool_use", "id", "toolu_fake_" + c.id, "name", c.name, "input", obj{}}, ds)
	}
	stop := "tool_use"
	if a.stopped() {
		stop = "end_turn"
	}
	s.event("message_delta", obj{
		"type", "message_delta",
		"delta", obj{"stop_reason", stop, "stop_sequence", nil},
		"usage", obj{"output_tokens", a.outputTokens},
	})
	s.event("message_stop", obj{"type", "message_stop"})
}

// anthropicMessage is a as a whole (non-streamed) Messages response.
func anthropicMessage(a *answer) obj {
	var content []any
	if a.thinkingAll != "" {
		content = append(content, obj{"type", "thinking", "thinking", a.thinkingAll, "signature", "ZmFrZW1vZGVsLXNpZ25hdHVyZQ=="})
	}
	if a.textAll != "" {
		content = append(content, obj{"type", "text", "text", a.textAll})
	}
	for _, c := range a.calls {
		content = append(content, obj{"type", "tool_use", "id", "toolu_fake_" + c.id, "name", c.name, "input", json.RawMessage(c.args)})
	}
	stop := "tool_use"
	if a.stopped() {
		stop = "end_turn"
	}
	return obj{
		"id", "msg_fake_" + a.id, "type", "message", "role", "assistant", "model", a.model,
		"content", content, "stop_reason", stop, "stop_sequence", nil,
		"usage", obj{"input_tokens", a.inputTokens, "cache_creation_input_tokens", 0, "cache_read_input_tokens", 0, "output_tokens", a.outputTokens},
	}
}

// anthropicError is the body of an Anthropic API error.
func anthropicError(status int, message string, seq string) obj {
	typ, msg := "api_error", "Internal server error"
	switch status {
	case 400:
		typ, msg = "invalid_request_error", "Invalid request"
	case 401:
		typ, msg = "authentication_error", "invalid x-api-key"
	case 403:
		typ, msg = "permission_error", "Your API key does not have permission to use the specified resource."
	case 404:
		typ, msg = "not_found_error", "The requested resource could not be found."
	case 413:
		typ, msg = "request_too_large", "Request exceeds the maximum allowed number of bytes."
	case 429:
		typ, msg = "rate_limit_error", "Number of requests has exceeded your rate limit."
	case 529:
		typ, msg = "overloaded_error", "Overloaded"
	}
	if message != "" {
		msg = message
	}
	return obj{"type", "error", "error", obj{"type", typ, "message", msg}, "request_id", "req_fake_" + seq}
}
