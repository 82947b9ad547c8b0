package provider

// Server is the HTTP API of a CLI that also runs as a server (opencode
// serve), as far as a client that drives one session of it needs: the
// routes and request bodies to create a session, prompt it and answer its
// permission requests, and what an event of the server's event bus (SSE,
// shared by every session) says about the session it belongs to. evcap
// record --opencode is such a client. Every field is set.
type Server struct {
	// EventPath is the event bus (GET, text/event-stream).
	EventPath string
	// SessionPath creates a session (POST, SessionBody).
	SessionPath string
	// SessionBody is the body that creates a session named title ("":
	// the server names it).
	SessionBody func(title string) []byte
	// CreatedSession reads the new session's id from the server's answer
	// to the SessionPath request; "" when it names none.
	CreatedSession func(answer []byte) string
	// PromptPath is where a prompt for the session goes (POST,
	// PromptBody).
	PromptPath func(session string) string
	// PromptBody is a prompt of one text for model ("vendor/model"; ""
	// leaves it to the server).
	PromptBody func(text, model string) []byte
	// ReplyBody answers a permission request (POST to its ReplyPath) with
	// reply ("once", "always" or "reject").
	ReplyBody func(reply string) []byte
	// ReadEvent reads the data of one bus event; false when it is not an
	// event (not a JSON object).
	ReadEvent func(data []byte) (BusEvent, bool)
}

// BusEvent is what one event of a Server's bus says about the session it
// belongs to.
type BusEvent struct {
	// Session is the session the event belongs to; "" for the server's
	// own notices (its handshake, heartbeats).
	Session string
	// Parent is, for an event announcing a session, the session it was
	// started from (a subagent's session names its caller's).
	Parent string
	// Busy: the session started working (or retries after an error).
	Busy bool
	// Idle: the session has nothing left to do.
	Idle bool
	// Permission is a permission request of the session waiting for an
	// answer; nil for any other event.
	Permission *PermissionRequest
}

// PermissionRequest is a tool call the session will not run before a
// client answers.
type PermissionRequest struct {
	// ID is the request's id. A server may announce one request more than
	// once (in two versions of its protocol); it is answered once.
	ID string
	// ReplyPath is where the answer goes (POST, Server.ReplyBody).
	ReplyPath string
}
