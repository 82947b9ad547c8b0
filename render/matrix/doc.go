// Package matrix delivers the progressive chat message of render/chat to a
// Matrix room: the first state is posted as an m.room.message, and every
// later state, the final answer included, is an edit of that event (a new
// m.room.message whose m.relates_to has rel_type m.replace and the original
// event id, and whose m.new_content holds the replacement).
//
// A Sink has the Send and Edit methods of render/chat's Sink interface, so a
// chat.Delivery can drive it; this package does not import render/chat (the
// two are siblings) and knows nothing of events, captures or files. It talks
// to the homeserver through the client-server API with mautrix-go, and
// leaves choosing the room, reading the access token and rate limiting to its
// caller. It does no end-to-end encryption: the room must be unencrypted.
//
// The text is sent as the plain body, exactly as given, plus an HTML
// formatted_body rendered from it as Markdown (raw HTML in the text is
// escaped, not passed through), since the final answer of an agent is
// Markdown.
package matrix
