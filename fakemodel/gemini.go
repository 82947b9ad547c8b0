package fakemodel

import "encoding/json"

// geminiChunks cuts a into GenerateContentResponse objects, one per delta:
// thought parts (thought:true), text parts, then one part per function call
// (Gemini sends calls whole, never as argument deltas). The last chunk
// carries finishReason STOP and the usageMetadata; Gemini CLI treats a
// stream that ends without a finish reason as broken.
func geminiChunks(a *answer) []obj {
	var parts []obj
	for _, c := range a.thinking {
		parts = append(parts, obj{"text", c, "thought", true})
	}
	for _, c := range a.text {
		parts = append(parts, obj{"text", c})
	}
	for _, c := range a.calls {
		parts = append(parts, obj{"functionCall", obj{"name", c.name, "args", json.RawMessage(c.args)}})
	}
	if len(parts) == 0 {
		parts = append(parts, obj{"text", ""})
	}
	out := make([]obj, 0, len(parts))
	for i, p := range parts {
		cand := obj{"content", obj{"parts", []any{p}, "role", "model"}}
		last := i == len(parts)-1
		if last {
			cand = append(cand, "finishReason", "STOP")
		}
		cand = append(cand, "index", 0)
		resp := obj{"candidates", []any{cand}}
		if last {
			resp = append(resp, "usageMetadata", geminiUsage(a))
		}
		resp = append(resp, "modelVersion", a.model, "responseId", "fake-"+a.id)
		out = append(out, resp)
	}
	return out
}

func geminiUsage(a *answer) obj {
	return obj{
		"promptTokenCount", a.inputTokens,
		"candidatesTokenCount", a.outputTokens - a.reasoningTokens,
		"totalTokenCount", a.inputTokens + a.outputTokens,
		"thoughtsTokenCount", a.reasoningTokens,
	}
}

// writeGemini streams a as streamGenerateContent?alt=sse: data-only events,
// each a GenerateContentResponse, with no end sentinel.
func writeGemini(s *sse, a *answer) {
	for _, c := range geminiChunks(a) {
		s.delta("", c)
	}
}

// geminiWhole is a as one (non-streamed) generateContent response.
func geminiWhole(a *answer) obj {
	var parts []any
	if a.thinkingAll != "" {
		parts = append(parts, obj{"text", a.thinkingAll, "thought", true})
	}
	if a.textAll != "" {
		parts = append(parts, obj{"text", a.textAll})
	}
	for _, c := range a.calls {
		parts = append(parts, obj{"functionCall", obj{"name", c.name, "args", json.RawMessage(c.args)}})
	}
	if parts == nil {
		parts = []any{obj{"text", ""}}
	}
	return obj{
		"candidates", []any{obj{"content", obj{"parts", parts, "role", "model"}, "finishReason", "STOP", "index", 0}},
		"usageMetadata", geminiUsage(a),
		"modelVersion", a.model,
		"responseId", "fake-" + a.id,
	}
}

// geminiError is the body of a Google API error.
func geminiError(status int, message string, retryAfter *int) obj {
	st, msg := "INTERNAL", "An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting"
	var details []any
	switch status {
	case 400:
		st, msg = "INVALID_ARGUMENT", "API key not valid. Please pass a valid API key."
		details = append(details, obj{"@type", "type.googleapis.com/google.rpc.ErrorInfo", "reason", "API_KEY_INVALID", "domain", "googleapis.com", "metadata", obj{"service", "generativelanguage.googleapis.com"}})
	case 401:
		st, msg = "UNAUTHENTICATED", "Request had invalid authentication credentials."
	case 403:
		st, msg = "PERMISSION_DENIED", "The caller does not have permission"
	case 404:
		st, msg = "NOT_FOUND", "models/fake is not found for API version v1beta."
	case 429:
		st, msg = "RESOURCE_EXHAUSTED", "Resource has been exhausted (e.g. check quota)."
	case 503:
		st, msg = "UNAVAILABLE", "The model is overloaded. Please try again later."
	}
	if message != "" {
		msg = message
	}
	if retryAfter != nil {
		details = append(details, obj{"@type", "type.googleapis.com/google.rpc.RetryInfo", "retryDelay", itoa(*retryAfter) + "s"})
	}
	e := obj{"code", status, "message", msg, "status", st}
	if details != nil {
		e = append(e, "details", details)
	}
	return obj{"error", e}
}
