package capture

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evcap/evcap/envelope"
)

// TestFromEnvRedactsAndStarts: a Capturer from FromEnv redacts by default
// and writes capture.start itself before its first record; the taps for
// the integration's own layers write handler_in and render_in records.
func TestFromEnvRedactsAndStarts(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.jsonl")
	env := func(k string) string {
		if k == EnvVar {
			return path
		}
		return ""
	}
	c, err := FromEnv(env, Options{Provider: "claude"})
	if err != nil {
		t.Fatal(err)
	}
	secret := "ghp_abcdefghijklmnopqrstuvwxyz0123456789"
	seq := c.Native([]byte(`{"type":"assistant","text":"token ` + secret + `"}`))
	c.Input([]byte(`{"type":"user","message":{"role":"user","content":"use ` + secret + `"}}`))
	type bubble struct {
		ID   string `json:"id"`
		Text string `json:"text"`
	}
	c.Handler("text", map[string]any{"delta": "hello", "cause": seq})
	WrapHandler(c, func(b bubble) string { return "bubble" }, func(bubble) {})(bubble{ID: "m1", Text: "hello " + secret})
	c.Render("message.update", bubble{ID: "m1", Text: "hello"})
	if err := c.Close(End{CleanEnd: true}); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(raw), secret) {
		t.Errorf("the capture holds the token:\n%s", raw)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs := readCapture(t, f)
	var got []string
	for _, r := range recs {
		got = append(got, string(r.Stage)+" "+r.EventType)
	}
	want := []string{"meta capture.start", "native_in assistant", "native_out user", "handler_in text", "handler_in bubble", "render_in message.update", "meta capture.end"}
	if strings.Join(got, ", ") != strings.Join(want, ", ") {
		t.Fatalf("records:\n %s\nwant\n %s", strings.Join(got, ", "), strings.Join(want, ", "))
	}
	if p := string(recs[0].Payload); !strings.Contains(p, `"provider":"claude"`) || !strings.Contains(p, `"argv":[`) {
		t.Errorf("capture.start %s", p)
	}
	if p := string(recs[5].Payload); p != `{"id":"m1","text":"hello"}` {
		t.Errorf("render_in payload %s", p)
	}
	if len(recs[1].Redactions) == 0 || len(recs[4].Redactions) == 0 {
		t.Errorf("no redaction ledger on the records that held the token")
	}
}

// TestFromEnvBeginFirst: Begin called before any record replaces the
// automatic capture.start; called later it writes nothing.
func TestFromEnvBeginFirst(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.jsonl")
	c, err := FromEnv(func(k string) string {
		switch k {
		case EnvVar:
			return path
		case NoRedactEnvVar:
			return "1"
		}
		return ""
	}, Options{Provider: "codex"})
	if err != nil {
		t.Fatal(err)
	}
	c.Begin(Start{EvcapVersion: "v-test", CLIVersion: "0.171.0"})
	c.Native([]byte(`{"type":"turn.started"}`))
	c.Begin(Start{EvcapVersion: "second"})
	if err := c.Close(End{}); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs := readCapture(t, f)
	if len(recs) != 3 || recs[0].EventType != envelope.EventCaptureStart || !strings.Contains(string(recs[0].Payload), `"evcapVersion":"v-test"`) {
		t.Fatalf("records %d, first %s", len(recs), recs[0].Payload)
	}
}
