package record

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/evcap/evcap/envelope"
	"github.com/tidwall/gjson"
)

// fakeOpencode is a synthetic opencode server: its bus carries another
// session's events besides the one evcap creates, announces the new
// session before POST /session has answered, asks one permission and
// starts a child session, and goes idle once the permission is answered.
type fakeOpencode struct {
	mu       sync.Mutex
	bus      chan string
	requests []string
	// v2: the permission is announced in both protocols (the
	// @opencode-ai/sdk types' permission.v2.asked besides
	// permission.asked), then a second one in v2 alone.
	v2 bool
}

func (f *fakeOpencode) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	f.mu.Lock()
	f.requests = append(f.requests, r.Method+" "+r.URL.Path+" "+string(body))
	f.mu.Unlock()
	ev := func(typ, props string) string {
		return fmt.Sprintf(`{"type":%q,"properties":%s}`, typ, props)
	}
	switch {
	case r.Method == http.MethodGet && r.URL.Path == "/event":
		w.Header().Set("Content-Type", "text/event-stream")
		fl := w.(http.Flusher)
		fmt.Fprintf(w, "data: %s\n\n", ev("server.connected", "{}"))
		fl.Flush()
		for {
			select {
			case d := <-f.bus:
				fmt.Fprintf(w, "data: %s\n\n", d)
				fl.Flush()
			case <-r.Context().Done():
				return
			}
		}
	case r.URL.Path == "/session":
		f.bus <- ev("session.updated", `{"sessionID":"ses_other","info":{"id":"ses_other"}}`)
		f.bus <- ev("session.created", `{"sessionID":"ses_A","info":{"id":"ses_A","title":"evcap record"}}`)
		time.Sleep(50 * time.Millisecond) // the event is read before the answer
		io.WriteString(w, `{"id":"ses_A"}`)
	case r.URL.Path == "/session/ses_A/message":
		f.bus <- ev("session.status", `{"sessionID":"ses_A","status":{"type":"busy"}}`)
		f.bus <- ev("message.part.updated", `{"sessionID":"ses_A","part":{"type":"text","text":"hello","sessionID":"ses_A"}}`)
		f.bus <- ev("message.part.updated", `{"sessionID":"ses_other","part":{"type":"text","text":"not ours"}}`)
		f.bus <- ev("session.created", `{"sessionID":"ses_B","info":{"id":"ses_B","parentID":"ses_A"}}`)
		f.bus <- ev("message.part.updated", `{"sessionID":"ses_B","part":{"type":"text","text":"subagent"}}`)
		f.bus <- ev("permission.asked", `{"id":"per_1","sessionID":"ses_A","permission":"edit"}`)
		if f.v2 {
			f.bus <- ev("permission.v2.asked", `{"id":"per_1","sessionID":"ses_A","action":"edit","resources":[]}`)
		}
		io.WriteString(w, `{"info":{}}`)
	case r.URL.Path == "/permission/per_1/reply":
		f.bus <- ev("permission.replied", `{"sessionID":"ses_A","requestID":"per_1","reply":"once"}`)
		if f.v2 {
			f.bus <- ev("permission.v2.asked", `{"id":"per_2","sessionID":"ses_A","action":"bash","resources":["ls"]}`)
		} else {
			f.bus <- ev("session.status", `{"sessionID":"ses_A","status":{"type":"idle"}}`)
		}
		io.WriteString(w, `true`)
	case r.URL.Path == "/api/session/ses_A/permission/per_2/reply":
		f.bus <- ev("permission.v2.replied", `{"sessionID":"ses_A","requestID":"per_2","reply":"once"}`)
		f.bus <- ev("session.status", `{"sessionID":"ses_A","status":{"type":"idle"}}`)
		io.WriteString(w, `true`)
	default:
		http.NotFound(w, r)
	}
}

func TestOpencodeSession(t *testing.T) {
	f := &fakeOpencode{bus: make(chan string, 64)}
	srv := httptest.NewServer(f)
	defer srv.Close()
	out := filepath.Join(t.TempDir(), "c.jsonl")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res, err := Opencode(ctx, OpencodeSession{BaseURL: srv.URL, Prompt: "say hello", Model: "fake/fake-model", Permission: "once"},
		Options{NewNormalizer: allNormalizers, Output: out})
	if err != nil {
		t.Fatalf("record: %v", err)
	}
	if ctx.Err() != nil {
		t.Fatal("the recording did not end when the session went idle")
	}
	var got []string
	for _, r := range readCapture(t, out) {
		switch r.Stage {
		case envelope.StageNativeIn:
			v := gjson.ParseBytes(r.Payload)
			got = append(got, "in "+v.Get("type").String()+" "+v.Get("properties.sessionID").String())
		case envelope.StageNativeOut:
			got = append(got, "out "+gjson.GetBytes(r.Payload, "method").String()+" "+gjson.GetBytes(r.Payload, "path").String()+" "+gjson.GetBytes(r.Payload, "body").Raw)
		}
	}
	want := []string{
		"out GET /event null",
		"out POST /session {}",
		"in session.created ses_A",
		`out POST /session/ses_A/message {"model":{"modelID":"fake-model","providerID":"fake"},"parts":[{"text":"say hello","type":"text"}]}`,
		"in session.status ses_A",
		"in message.part.updated ses_A",
		"in session.created ses_B",
		"in message.part.updated ses_B",
		"in permission.asked ses_A",
		`out POST /permission/per_1/reply {"reply":"once"}`,
		"in permission.replied ses_A",
		"in session.status ses_A",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("records:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if notes := strings.Join(res.Notes, "; "); !strings.Contains(notes, "idle") {
		t.Errorf("notes %q do not say the session went idle", notes)
	}
}

// TestOpencodeSessionV2Permissions: a permission announced in both
// protocols is answered once, and one asked in the v2 protocol alone is
// answered under the session's route, so the session goes on to idle.
func TestOpencodeSessionV2Permissions(t *testing.T) {
	f := &fakeOpencode{bus: make(chan string, 64), v2: true}
	srv := httptest.NewServer(f)
	defer srv.Close()
	out := filepath.Join(t.TempDir(), "c.jsonl")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if _, err := Opencode(ctx, OpencodeSession{BaseURL: srv.URL, Prompt: "p", Permission: "once"},
		Options{NewNormalizer: allNormalizers, Output: out}); err != nil {
		t.Fatalf("record: %v", err)
	}
	if ctx.Err() != nil {
		t.Fatal("the recording did not end: the v2 permission went unanswered")
	}
	var replies []string
	for _, r := range readCapture(t, out) {
		if path := gjson.GetBytes(r.Payload, "path").String(); r.Stage == envelope.StageNativeOut && strings.HasSuffix(path, "/reply") {
			replies = append(replies, path+" "+gjson.GetBytes(r.Payload, "body").Raw)
		}
	}
	want := []string{`/permission/per_1/reply {"reply":"once"}`, `/api/session/ses_A/permission/per_2/reply {"reply":"once"}`}
	if strings.Join(replies, "\n") != strings.Join(want, "\n") {
		t.Errorf("answers:\n%s\nwant:\n%s", strings.Join(replies, "\n"), strings.Join(want, "\n"))
	}
}
