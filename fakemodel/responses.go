package fakemodel

// fixedCreated is the creation time stamped on responses: a constant, so the
// output is deterministic (no client checks it).
const fixedCreated = 1767225600 // 2026-01-01T00:00:00Z

// writeResponses streams a as an OpenAI Responses API response the way codex
// consumes it: response.created, then per output item an
// output_item.added, its deltas (reasoning summary text, output text,
// function-call arguments or custom-tool input) and an output_item.done, and
// finally response.completed carrying every item and the usage. Every event
// has a sequence_number.
func writeResponses(s *sse, a *answer) {
	seq := 0
	ev := func(name string, fields ...any) {
		s.event(name, append(obj{"type", name, "sequence_number", seq}, fields...))
		seq++
	}
	dv := func(name string, fields ...any) {
		s.delta(name, append(obj{"type", name, "sequence_number", seq}, fields...))
		seq++
	}
	respID := "resp_fake_" + a.id
	resp := func(status string, output []any, usage any) obj {
		o := obj{"id", respID, "object", "response", "created_at", fixedCreated, "status", status, "model", a.model, "output", output}
		if usage != nil {
			o = append(o, "usage", usage)
		}
		return o
	}
	ev("response.created", "response", resp("in_progress", []any{}, nil))
	ev("response.in_progress", "response", resp("in_progress", []any{}, nil))

	var done []any
	out := 0
	if a.thinkingAll != "" {
		id := "rs_fake_" + a.id
		ev("response.output_item.added", "output_index", out, "item", obj{"id", id, "type", "reasoning", "summary", []any{}})
		ev("response.reasoning_summary_part.added", "item_id", id, "output_index", out, "summary_index", 0, "part", obj{"type", "summary_text", "text", ""})
		for _, c := range a.thinking {
			dv("response.reasoning_summary_text.delta", "item_id", id, "output_index", out, "summary_index", 0, "delta", c)
		}
		ev("response.reasoning_summary_text.done", "item_id", id, "output_index", out, "summary_index", 0, "text", a.thinkingAll)
		ev("response.reasoning_summary_part.done", "item_id", id, "output_index", out, "summary_index", 0, "part", obj{"type", "summary_text", "text", a.thinkingAll})
		item := obj{"id", id, "type", "reasoning", "summary", []any{obj{"type", "summary_text", "text", a.thinkingAll}}}
		ev("response.output_item.done", "output_index", out, "item", item)
		done = append(done, item)
		out++
	}
	if a.textAll != "" {
		id := "msg_fake_" + a.id
		ev("response.output_item.added", "output_index", out, "item", obj{"id", id, "type", "message", "status", "in_progress", "role", "assistant", "content", []any{}})
		ev("response.content_part.added", "item_id", id, "output_index", out, "content_index", 0, "part", obj{"type", "output_text", "text", "", "annotations", []any{}})
		for _, c := range a.text {
			dv("response.output_text.delta", "item_id", id, "output_index", out, "content_index", 0, "delta", c)
		}
		ev("response.output_text.done", "item_id", id, "output_index", out, "content_index", 0, "text", a.textAll)
		part := obj{"type", "output_text", "text", a.textAll, "annotations", []any{}}
		ev("response.content_part.done", "item_id", id, "output_index", out, "content_index", 0, "part", part)
		item := obj{"id", id, "type", "message", "status", "completed", "role", "assistant", "content", []any{part}}
		ev("response.output_item.done", "output_index", out, "item", item)
		done = append(done, item)
		out++
	}
	for _, c := range a.calls {
		callID := "call_fake_" + c.id
		var item obj
		if c.custom {
			id := "ctc_fake_" + c.id
			ev("response.output_item.added", "output_index", out, "item", obj{"id", id, "type", "custom_tool_call", "status", "in_progress", "call_id", callID, "name", c.name, "input", ""})
			for _, p := range chunk(c.args, a.argChunks) {
				dv("response.custom_tool_call_input.delta", "item_id", id, "output_index", out, "delta", p)
			}
			ev("response.custom_tool_call_input.done", "item_id", id, "output_index", out, "input", c.args)
			item = obj{"id", id, "type", "custom_tool_call", "status", "completed", "call_id", callID, "name", c.name, "input", c.args}
		} else {
			id := "fc_fake_" + c.id
			ev("response.output_item.added", "output_index", out, "item", obj{"id", id, "type", "function_call", "status", "in_progress", "call_id", callID, "name", c.name, "arguments", ""})
			for _, p := range chunk(c.args, a.argChunks) {
				dv("response.function_call_arguments.delta", "item_id", id, "output_index", out, "delta", p)
			}
			ev("response.function_call_arguments.done", "item_id", id, "output_index", out, "arguments", c.args)
			item = obj{"id", id, "type", "function_call", "status", "completed", "call_id", callID, "name", c.name, "arguments", c.args}
		}
		ev("response.output_item.done", "output_index", out, "item", item)
		done = append(done, item)
		out++
	}
	if done == nil {
		done = []any{}
	}
	usage := obj{
		"input_tokens", a.inputTokens,
		"input_tokens_details", obj{"cached_tokens", 0},
		"output_tokens", a.outputTokens,
		"output_tokens_details", obj{"reasoning_tokens", a.reasoningTokens},
		"total_tokens", a.inputTokens + a.outputTokens,
	}
	ev("response.completed", "response", resp("completed", done, usage))
}

// openAIError is the body of an OpenAI API error (Responses and Chat alike).
func openAIError(status int, message string) obj {
	typ, code, msg := "server_error", any(nil), "The server had an error while processing your request. Sorry about that!"
	switch status {
	case 400:
		typ, code, msg = "invalid_request_error", nil, "Invalid request."
	case 401:
		typ, code, msg = "invalid_request_error", "invalid_api_key", "Incorrect API key provided: dummy. You can find your API key at https://platform.openai.com/account/api-keys."
	case 403:
		typ, code, msg = "invalid_request_error", "unsupported_country_region_territory", "Country, region, or territory not supported"
	case 404:
		typ, code, msg = "invalid_request_error", "model_not_found", "The model does not exist or you do not have access to it."
	case 429:
		typ, code, msg = "requests", "rate_limit_exceeded", "Rate limit reached for requests. Please try again shortly."
	case 503:
		typ, code, msg = "server_error", nil, "The engine is currently overloaded, please try again later."
	}
	if message != "" {
		msg = message
	}
	return obj{"error", obj{"message", msg, "type", typ, "param", nil, "code", code}}
}
