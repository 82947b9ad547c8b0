package opencode_test

import (
	"bufio"
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/evcap/evcap/normalize/opencode"
	"github.com/evcap/evcap/provider"
)

// busEvents reads the events a real opencode serve put on its /event bus
// (the data of each SSE event) through the descriptor's server API.
func busEvents(t *testing.T, path string) []provider.BusEvent {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	api := opencode.Provider().Server
	var out []provider.BusEvent
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		data, ok := bytes.CutPrefix(sc.Bytes(), []byte("data: "))
		if !ok {
			continue
		}
		ev, ok := api.ReadEvent(data)
		if !ok {
			t.Fatalf("%s: a bus event is not read: %.200s", path, data)
		}
		out = append(out, ev)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestServerReadsPermissions: the real session that asked two bash
// permissions gives both requests, to be answered at the v1 route, and
// goes busy before it goes idle.
func TestServerReadsPermissions(t *testing.T) {
	var asked []string
	busy, idleAfterBusy := false, false
	for _, ev := range busEvents(t, extraDir+"/permission-serve.sse.txt") {
		if p := ev.Permission; p != nil {
			if ev.Session == "" || p.ReplyPath != "/permission/"+p.ID+"/reply" {
				t.Errorf("permission %+v of session %q", p, ev.Session)
			}
			asked = append(asked, p.ID)
		}
		busy = busy || ev.Busy
		idleAfterBusy = idleAfterBusy || (busy && ev.Idle)
	}
	if len(asked) != 2 || !strings.HasPrefix(asked[0], "per_") {
		t.Errorf("permission requests %q, want the run's two", asked)
	}
	if !idleAfterBusy {
		t.Error("the session never went idle after being busy")
	}
}

// TestServerReadsChildSessions: in the real run whose task tool started a
// subagent, the child's session names its caller's as its parent, and
// every event of the run belongs to one of the two or to no session.
func TestServerReadsChildSessions(t *testing.T) {
	evs := busEvents(t, extraDir+"/subagent-serve.sse.txt")
	root := ""
	for _, ev := range evs {
		if ev.Session != "" {
			root = ev.Session
			break
		}
	}
	child := ""
	for _, ev := range evs {
		if ev.Parent != "" {
			if ev.Parent != root || ev.Session == root {
				t.Fatalf("session %q names parent %q; the run's session is %q", ev.Session, ev.Parent, root)
			}
			child = ev.Session
		}
	}
	if root == "" || child == "" {
		t.Fatalf("root %q, child %q: want both", root, child)
	}
	for _, ev := range evs {
		if ev.Session != "" && ev.Session != root && ev.Session != child {
			t.Errorf("an event of session %q, neither the run's nor its child's", ev.Session)
		}
	}
}

// TestServerAnswersV2Permissions: a request of the v2 permission protocol
// (permission.v2.asked in the @opencode-ai/sdk 1.18.33 types; no recorded
// server sent one yet) is answered under its session's route, and the
// requests evcap sends have the SDK's shapes.
func TestServerAnswersV2Permissions(t *testing.T) {
	api := opencode.Provider().Server
	ev, ok := api.ReadEvent([]byte(`{"id":"evt_1","type":"permission.v2.asked","properties":{"id":"per_9","sessionID":"ses_A","action":"bash","resources":["ls"]}}`))
	if !ok || ev.Session != "ses_A" || ev.Permission == nil || ev.Permission.ReplyPath != "/api/session/ses_A/permission/per_9/reply" {
		t.Fatalf("read %+v (%v), permission %+v", ev, ok, ev.Permission)
	}
	for got, want := range map[string]string{
		string(api.ReplyBody("once")):                `{"reply":"once"}`,
		string(api.SessionBody("")):                  `{}`,
		string(api.SessionBody("t")):                 `{"title":"t"}`,
		string(api.PromptBody("hi", "")):             `{"parts":[{"text":"hi","type":"text"}]}`,
		string(api.PromptBody("hi", "fake/m")):       `{"model":{"modelID":"m","providerID":"fake"},"parts":[{"text":"hi","type":"text"}]}`,
		api.PromptPath("ses_A"):                      "/session/ses_A/message",
		api.CreatedSession([]byte(`{"id":"ses_B"}`)): "ses_B",
	} {
		if got != want {
			t.Errorf("got %s, want %s", got, want)
		}
	}
	if _, ok := api.ReadEvent([]byte("not json")); ok {
		t.Error("a line that is not JSON was read as an event")
	}
}
