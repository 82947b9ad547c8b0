package opencode

// Field names seen per shape, from the corpus (opencode 1.18.33) and from
// opencode's message and bus definitions as summarised in
// docs/formats.md. Classify reports anything else as an unknown field.

var runTop = map[string][]string{
	"step_start":  {"type", "timestamp", "sessionID", "part"},
	"step_finish": {"type", "timestamp", "sessionID", "part"},
	"text":        {"type", "timestamp", "sessionID", "part"},
	"reasoning":   {"type", "timestamp", "sessionID", "part"},
	"tool_use":    {"type", "timestamp", "sessionID", "part"},
	"error":       {"type", "timestamp", "sessionID", "error"},
	"done":        {"type", "timestamp", "sessionID", "reason", "rejected"},
}

var partCommon = []string{"id", "sessionID", "messageID", "type"}

func withCommon(f ...string) []string { return append(append([]string(nil), partCommon...), f...) }

var partFields = map[string][]string{
	"text":        withCommon("text", "synthetic", "ignored", "time", "metadata"),
	"reasoning":   withCommon("text", "time", "metadata"),
	"tool":        withCommon("callID", "tool", "state", "metadata"),
	"step-start":  withCommon("snapshot"),
	"step-finish": withCommon("reason", "snapshot", "cost", "tokens"),
}

var stateFields = map[string][]string{
	"pending":   {"status", "input", "raw"},
	"running":   {"status", "input", "title", "metadata", "time"},
	"completed": {"status", "input", "output", "title", "metadata", "time", "attachments"},
	"error":     {"status", "input", "error", "metadata", "time"},
}

var errorFields = []string{"name", "data"}

var errorDataFields = []string{"message", "statusCode", "isRetryable", "responseHeaders", "responseBody",
	"metadata", "providerID"}

var busTop = []string{"id", "type", "properties"}

var busProps = map[string][]string{
	"server.connected":      {},
	"server.heartbeat":      {},
	"session.created":       {"sessionID", "info"},
	"session.updated":       {"sessionID", "info"},
	"session.deleted":       {"sessionID", "info"},
	"session.idle":          {"sessionID"},
	"session.diff":          {"sessionID", "diff"},
	"session.status":        {"sessionID", "status"},
	"session.error":         {"sessionID", "error"},
	"message.updated":       {"sessionID", "info"},
	"message.part.updated":  {"sessionID", "part", "time", "delta"},
	"message.part.delta":    {"sessionID", "messageID", "partID", "field", "delta"},
	"message.removed":       {"sessionID", "messageID"},
	"message.part.removed":  {"sessionID", "messageID", "partID"},
	"permission.asked":      {"id", "sessionID", "permission", "patterns", "metadata", "always", "tool"},
	"permission.replied":    {"sessionID", "requestID", "reply"},
	"permission.v2.asked":   {"id", "sessionID", "action", "resources", "save", "metadata", "source"},
	"permission.v2.replied": {"sessionID", "requestID", "reply"},
	"plugin.added":          {"id"},
	"catalog.updated":       {},
	"reference.updated":     {},
	"integration.updated":   {},
}

var statusFields = map[string][]string{
	"busy":  {"type"},
	"idle":  {"type"},
	"retry": {"type", "attempt", "message", "action", "next"},
}

var infoFields = map[string][]string{
	"user": {"id", "sessionID", "role", "time", "agent", "model", "summary", "system", "tools", "variant"},
	"assistant": {"id", "sessionID", "role", "time", "parentID", "mode", "agent", "path", "cost", "tokens",
		"modelID", "providerID", "finish", "error", "summary", "system", "structured", "variant"},
}
