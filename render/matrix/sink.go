package matrix

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"maunium.net/go/mautrix"
	"maunium.net/go/mautrix/event"
	"maunium.net/go/mautrix/format"
	"maunium.net/go/mautrix/id"
)

// Config says where a Sink posts.
type Config struct {
	// Homeserver is the base URL of the homeserver, e.g.
	// https://matrix.example.org.
	Homeserver string
	// Room is the room id (!abc:example.org) the messages go to; the
	// token's user must already be joined.
	Room string
	// Token is the access token of the posting user. Callers read it from
	// the environment or a secret store, never from a command-line flag.
	Token string
	// HTTPClient, when set, replaces mautrix's default client (for
	// timeouts or a proxy).
	HTTPClient *http.Client
}

// Sink posts and edits one message stream in a Matrix room. Its methods are
// safe for sequential use by one Delivery.
type Sink struct {
	client *mautrix.Client
	room   id.RoomID
}

// ErrConfig is wrapped by New when a Config field is missing or malformed.
var ErrConfig = errors.New("matrix: bad configuration")

// New returns a Sink for cfg. It does not contact the homeserver.
func New(cfg Config) (*Sink, error) {
	switch {
	case cfg.Homeserver == "":
		return nil, fmt.Errorf("%w: no homeserver URL", ErrConfig)
	case cfg.Room == "" || cfg.Room[0] != '!':
		return nil, fmt.Errorf("%w: room %q is not a room id (they start with '!')", ErrConfig, cfg.Room)
	case cfg.Token == "":
		return nil, fmt.Errorf("%w: no access token", ErrConfig)
	}
	// The user id is only needed for calls about the user itself (sync
	// filters, profile); sending into a room needs just the token.
	cli, err := mautrix.NewClient(cfg.Homeserver, "", cfg.Token)
	if err != nil {
		return nil, fmt.Errorf("%w: homeserver %q: %v", ErrConfig, cfg.Homeserver, err)
	}
	if cfg.HTTPClient != nil {
		cli.Client = cfg.HTTPClient
	}
	return &Sink{client: cli, room: id.RoomID(cfg.Room)}, nil
}

// Send posts text as a new m.room.message and returns its event id.
func (s *Sink) Send(ctx context.Context, text string) (string, error) {
	content := messageContent(text)
	resp, err := s.client.SendMessageEvent(ctx, s.room, event.EventMessage, &content)
	if err != nil {
		return "", fmt.Errorf("matrix: send to %s: %w", s.room, err)
	}
	return resp.EventID.String(), nil
}

// Edit replaces the text of the message with event id original by sending
// an m.replace edit: m.new_content holds the new message, and the edit's
// own body, shown by clients that do not understand edits, is the whole
// text prefixed with "* ". (mautrix's SetEdit would cut a long fallback at
// byte 50, possibly inside a UTF-8 character.) The empty m.mentions keeps
// an edit from notifying anyone again.
func (s *Sink) Edit(ctx context.Context, original, text string) error {
	replacement := messageContent(text)
	content := event.MessageEventContent{
		MsgType:    event.MsgText,
		Body:       "* " + text,
		Mentions:   &event.Mentions{},
		NewContent: &replacement,
		RelatesTo:  (&event.RelatesTo{}).SetReplace(id.EventID(original)),
	}
	if _, err := s.client.SendMessageEvent(ctx, s.room, event.EventMessage, &content); err != nil {
		return fmt.Errorf("matrix: edit %s in %s: %w", original, s.room, err)
	}
	return nil
}

// messageContent is an m.text message whose body is text exactly, with an
// HTML rendering of it when the Markdown changes anything.
func messageContent(text string) event.MessageEventContent {
	content := event.MessageEventContent{MsgType: event.MsgText, Body: text}
	rendered := format.RenderMarkdown(text, true, false)
	if rendered.Format == event.FormatHTML && rendered.FormattedBody != "" {
		content.Format = event.FormatHTML
		content.FormattedBody = rendered.FormattedBody
	}
	return content
}
