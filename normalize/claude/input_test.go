package claude_test

import (
	"strings"
	"testing"

	"github.com/evcap/evcap/envelope"
	"github.com/evcap/evcap/internal/corpustest"
	"github.com/evcap/evcap/normalize/claude"
	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// sdkCapture is a recording of the Claude Agent SDK driving claude with a
// permission prompt (sanitized): its native_out records are the lines the
// SDK wrote to claude's stdin.
const sdkCapture = "testdata/sdk-permission.capture.jsonl"

// TestInputMatcherOnSDKRun replays the recorded SDK run's input with the
// SDK's request id changed, as a new run of the SDK numbers its requests
// afresh: every line matches, and claude's recorded answer to the
// initialize request is handed back under the new id.
func TestInputMatcherOnSDKRun(t *testing.T) {
	m := claude.NewInputMatcher()
	var answered, inputs int
	for _, rec := range corpustest.Records(t, sdkCapture) {
		line := envelope.DecodeNativeLine(rec.EventType, rec.Payload)
		switch {
		case rec.Stage == envelope.StageNativeOut && rec.EventType != envelope.EventInputClosed:
			inputs++
			live := line
			if rec.EventType == "control_request" {
				var err error
				if live, err = sjson.SetBytes(append([]byte(nil), line...), "request_id", "live-"+gjson.GetBytes(line, "request_id").String()); err != nil {
					t.Fatal(err)
				}
			}
			if why := m.Match(line, live, len(rec.Redactions) > 0); why != "" {
				t.Errorf("sequence %d: the SDK's line does not match its recording: %s", rec.Sequence, why)
			}
		case rec.Stage == envelope.StageNativeIn && rec.EventType == "control_response":
			got := m.Live(line)
			id := gjson.GetBytes(line, "response.request_id").String()
			if want := "live-" + id; gjson.GetBytes(got, "response.request_id").String() != want {
				t.Errorf("sequence %d: the answer to %s is given under %q, want %q", rec.Sequence, id,
					gjson.GetBytes(got, "response.request_id").String(), want)
			}
			if rest, _ := sjson.SetBytes(got, "response.request_id", id); string(rest) != string(line) {
				t.Errorf("sequence %d: Live changed more than the id:\n%s\n%s", rec.Sequence, got, line)
			}
			answered++
		case rec.Stage == envelope.StageNativeIn:
			if got := m.Live(line); string(got) != string(line) {
				t.Errorf("sequence %d (%s): Live rewrote a line that answers no request of the SDK", rec.Sequence, rec.EventType)
			}
		}
	}
	if inputs < 3 || answered != 1 {
		t.Fatalf("the capture gave %d input lines and %d answers; want the SDK run's 3 and 1", inputs, answered)
	}
}

// TestInputMatcherTellsWhatDiffers: a permission answered otherwise, a
// request of another kind, or another prompt are each named.
func TestInputMatcherTellsWhatDiffers(t *testing.T) {
	var resp, req, user []byte
	for _, rec := range corpustest.Records(t, sdkCapture) {
		if rec.Stage != envelope.StageNativeOut {
			continue
		}
		switch rec.EventType {
		case "control_response":
			resp = rec.Payload
		case "control_request":
			req = rec.Payload
		case "user":
			user = rec.Payload
		}
	}
	set := func(b []byte, path string, v any) []byte {
		out, err := sjson.SetBytes(append([]byte(nil), b...), path, v)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	for _, c := range []struct {
		name      string
		want, got []byte
		redacted  bool
		says      string
	}{
		{"denied", resp, set(resp, "response.response.behavior", "deny"), false, `behavior "deny", expected "allow"`},
		{"another request answered", resp, set(resp, "response.request_id", "other"), false, `answers request_id "other"`},
		{"another request", req, set(req, "request.subtype", "interrupt"), false, `request subtype "interrupt", expected "initialize"`},
		{"another prompt", user, set(user, "message.content", "something else"), false, "different message content"},
		{"another prompt, redacted", user, set(user, "message.content", "something else"), true, ""},
		{"another type", user, req, false, `type "control_request", expected "user"`},
		{"not JSON", user, []byte("hello"), false, "one is JSON, the other is not"},
		{"other text", []byte("a"), []byte("b"), false, "different text"},
	} {
		m := claude.NewInputMatcher()
		why := m.Match(c.want, c.got, c.redacted)
		if (c.says == "") != (why == "") || !strings.Contains(why, c.says) {
			t.Errorf("%s: Match says %q, want %q", c.name, why, c.says)
		}
	}
}
