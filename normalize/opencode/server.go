package opencode

import (
	"encoding/json"
	"net/url"
	"strings"

	"github.com/evcap/evcap/provider"
	"github.com/tidwall/gjson"
)

// server is opencode serve's HTTP API as a client driving one session uses
// it (provider.Server): the routes and shapes of the @opencode-ai/sdk
// types (1.18.33). The v1 permission protocol (permission.asked) is
// answered at /permission/{id}/reply, the v2 one (permission.v2.asked)
// under the session's route.
func server() *provider.Server {
	return &provider.Server{
		EventPath:      "/event",
		SessionPath:    "/session",
		SessionBody:    sessionBody,
		CreatedSession: func(answer []byte) string { return gjson.GetBytes(answer, "id").String() },
		PromptPath:     func(session string) string { return "/session/" + url.PathEscape(session) + "/message" },
		PromptBody:     promptBody,
		ReplyBody: func(reply string) []byte {
			b, _ := json.Marshal(map[string]string{"reply": reply})
			return b
		},
		ReadEvent: readBusEvent,
	}
}

func sessionBody(title string) []byte {
	if title == "" {
		return []byte(`{}`)
	}
	b, _ := json.Marshal(map[string]string{"title": title})
	return b
}

// promptBody is a prompt of one text part; a model "providerID/modelID"
// is named, one without a "/" is left to the server.
func promptBody(text, model string) []byte {
	msg := map[string]any{"parts": []map[string]string{{"type": "text", "text": text}}}
	if prov, id, ok := strings.Cut(model, "/"); ok {
		msg["model"] = map[string]string{"providerID": prov, "modelID": id}
	}
	b, _ := json.Marshal(msg)
	return b
}

// readBusEvent reads one /event payload {"id","type","properties"}.
func readBusEvent(data []byte) (provider.BusEvent, bool) {
	if !gjson.ValidBytes(data) {
		return provider.BusEvent{}, false
	}
	v := gjson.ParseBytes(data)
	if !v.IsObject() {
		return provider.BusEvent{}, false
	}
	var ev provider.BusEvent
	typ := v.Get("type").String()
	p := v.Get("properties")
	for _, path := range []string{"sessionID", "info.sessionID", "part.sessionID"} {
		if s := p.Get(path).String(); s != "" {
			ev.Session = s
			break
		}
	}
	if strings.HasPrefix(typ, "session.") {
		// session.created and session.updated carry the session itself.
		if s := p.Get("info.id").String(); s != "" {
			ev.Session = s
		}
		ev.Parent = p.Get("info.parentID").String()
	}
	switch typ {
	case "session.status":
		switch p.Get("status.type").String() {
		case "busy", "retry":
			ev.Busy = true
		case "idle":
			ev.Idle = true
		}
	case "session.idle":
		ev.Idle = true
	case "permission.asked":
		if id := p.Get("id").String(); id != "" {
			ev.Permission = &provider.PermissionRequest{ID: id, ReplyPath: "/permission/" + url.PathEscape(id) + "/reply"}
		}
	case "permission.v2.asked":
		if id := p.Get("id").String(); id != "" && ev.Session != "" {
			ev.Permission = &provider.PermissionRequest{ID: id,
				ReplyPath: "/api/session/" + url.PathEscape(ev.Session) + "/permission/" + url.PathEscape(id) + "/reply"}
		}
	}
	return ev, true
}
