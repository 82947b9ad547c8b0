package claude

import (
	"encoding/json"
	"fmt"

	"github.com/evcap/evcap/provider"
	"github.com/tidwall/gjson"
)

// inputMatcher compares the stream-json lines an integration writes to
// claude's stdin (--input-format stream-json, as the Agent SDKs drive it)
// with the recorded ones, for evcap play. The protocol's ids: the SDK
// numbers its own control_requests afresh on each run, so their
// request_id is not compared but remembered, and claude's recorded
// control_response to such a request is handed back under the live id.
// A control_response the integration writes answers one of claude's
// requests, whose id the capture replays as recorded: it must match.
type inputMatcher struct {
	// ids maps the request_id of a control_request the integration sent
	// in the recorded run to the one it sent now.
	ids map[string]string
}

// NewInputMatcher returns the matcher of one replay (Descriptor.Input).
func NewInputMatcher() provider.InputMatcher {
	return &inputMatcher{ids: map[string]string{}}
}

// Match implements provider.InputMatcher.
func (m *inputMatcher) Match(want, got []byte, redacted bool) string {
	wj, gj := gjson.ValidBytes(want), gjson.ValidBytes(got)
	if !wj || !gj {
		if wj != gj {
			return "one is JSON, the other is not"
		}
		if !redacted && string(want) != string(got) {
			return "different text"
		}
		return ""
	}
	wt, gt := gjson.GetBytes(want, "type").String(), gjson.GetBytes(got, "type").String()
	if wt != gt {
		return fmt.Sprintf("type %q, expected %q", gt, wt)
	}
	switch wt {
	case "control_response":
		for _, f := range []struct{ path, what string }{
			{"response.request_id", "answers request_id"},
			{"response.subtype", "response subtype"},
			{"response.response.behavior", "behavior"},
		} {
			w, g := gjson.GetBytes(want, f.path).String(), gjson.GetBytes(got, f.path).String()
			if w != g {
				return fmt.Sprintf("%s %q, expected %q", f.what, g, w)
			}
		}
	case "control_request":
		ws, gs := gjson.GetBytes(want, "request.subtype").String(), gjson.GetBytes(got, "request.subtype").String()
		if ws != gs {
			return fmt.Sprintf("request subtype %q, expected %q", gs, ws)
		}
		if w, g := gjson.GetBytes(want, "request_id").String(), gjson.GetBytes(got, "request_id").String(); w != "" && g != "" {
			m.ids[w] = g
		}
	case "user":
		if redacted {
			return ""
		}
		w := gjson.GetBytes(want, "message.content")
		g := gjson.GetBytes(got, "message.content")
		if w.Raw != g.Raw && w.String() != g.String() {
			return "different message content"
		}
	}
	return ""
}

// Live implements provider.InputMatcher: a control_response of claude's
// to a request of the integration gets the request's live id.
func (m *inputMatcher) Live(line []byte) []byte {
	if len(m.ids) == 0 || gjson.GetBytes(line, "type").String() != "control_response" {
		return line
	}
	id := gjson.GetBytes(line, "response.request_id")
	live, ok := m.ids[id.String()]
	if !ok || id.Type != gjson.String || id.Index <= 0 || id.Index+len(id.Raw) > len(line) {
		return line
	}
	q, _ := json.Marshal(live)
	out := make([]byte, 0, len(line)+len(q))
	out = append(append(append(out, line[:id.Index]...), q...), line[id.Index+len(id.Raw):]...)
	return out
}
