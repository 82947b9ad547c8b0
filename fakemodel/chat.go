package fakemodel

import "fmt"

// writeChat streams a as OpenAI Chat Completions chunks the way
// @ai-sdk/openai-compatible (opencode) reads them: a role chunk,
// reasoning_content deltas, content deltas, per tool call a chunk with its
// id and name followed by argument deltas, a chunk with the finish reason,
// a usage chunk with empty choices when the request asked for it
// (stream_options.include_usage), and the [DONE] sentinel.
func writeChat(s *sse, a *answer, includeUsage bool) {
	id := "chatcmpl-fake-" + a.id
	chunkOf := func(delta obj, finish any) obj {
		return obj{
			"id", id, "object", "chat.completion.chunk", "created", fixedCreated, "model", a.model,
			"choices", []any{obj{"index", 0, "delta", delta, "finish_reason", finish}},
		}
	}
	s.event("", chunkOf(obj{"role", "assistant", "content", ""}, nil))
	for _, c := range a.thinking {
		s.delta("", chunkOf(obj{"reasoning_content", c}, nil))
	}
	for _, c := range a.text {
		s.delta("", chunkOf(obj{"content", c}, nil))
	}
	for i, c := range a.calls {
		s.event("", chunkOf(obj{"tool_calls", []any{obj{
			"index", i, "id", "call_fake_" + c.id, "type", "function",
			"function", obj{"name", c.name, "arguments", ""},
		}}}, nil))
		for _, p := range chunk(c.args, a.argChunks) {
			s.delta("", chunkOf(obj{"tool_calls", []any{obj{"index", i, "function", obj{"arguments", p}}}}, nil))
		}
	}
	finish := "tool_calls"
	if a.stopped() {
		finish = "stop"
	}
	s.event("", chunkOf(obj{}, finish))
	if includeUsage {
		s.event("", obj{
			"id", id, "object", "chat.completion.chunk", "created", fixedCreated, "model", a.model,
			"choices", []any{},
			"usage", chatUsage(a),
		})
	}
	s.raw("", []byte("[DONE]"))
}

func chatUsage(a *answer) obj {
	return obj{
		"prompt_tokens", a.inputTokens,
		"completion_tokens", a.outputTokens,
		"total_tokens", a.inputTokens + a.outputTokens,
		"completion_tokens_details", obj{"reasoning_tokens", a.reasoningTokens},
	}
}

// chatCompletion is a as a whole (non-streamed) Chat Completions response.
func chatCompletion(a *answer) obj {
	msg := obj{"role", "assistant", "content", a.textAll}
	if a.thinkingAll != "" {
		msg = append(msg, "reasoning_content", a.thinkingAll)
	}
	if len(a.calls) > 0 {
		var calls []any
		for _, c := range a.calls {
			calls = append(calls, obj{"id", "call_fake_" + c.id, "type", "function", "function", obj{"name", c.name, "arguments", c.args}})
		}
		msg = append(msg, "tool_calls", calls)
	}
	finish := "tool_calls"
	if a.stopped() {
		finish = "stop"
	}
	return obj{
		"id", fmt.Sprintf("chatcmpl-fake-%s", a.id), "object", "chat.completion", "created", fixedCreated, "model", a.model,
		"choices", []any{obj{"index", 0, "message", msg, "finish_reason", finish}},
		"usage", chatUsage(a),
	}
}
