package sanitize_test

import (
	"bytes"
	"io"
	"strings"
	"testing"

	"github.com/evcap/evcap/capture"
	"github.com/evcap/evcap/envelope"
	"github.com/evcap/evcap/sanitize"
)

// lateProjectCapture is a synthetic Claude capture whose project root is
// named only after a record that mentions a file under it, and after
// filler records of the given total size.
func lateProjectCapture(t *testing.T, filler int) []byte {
	t.Helper()
	var out bytes.Buffer
	w := envelope.NewWriter(&out, envelope.WriterOptions{CaptureID: "01KQ0000000000000000000000", FlushInterval: -1})
	c := capture.New(w, capture.Options{Provider: "claude"})
	c.Begin(capture.Start{EvcapVersion: "test", Provider: "claude"})
	c.Native([]byte(`{"type":"system","subtype":"hook_response","output":"read /work/late/main.go"}`))
	for n := 0; n < filler; n += 1000 {
		c.Native([]byte(`{"type":"system","subtype":"hook_response","output":"` + strings.Repeat("f", 1000) + `"}`))
	}
	c.Native([]byte(`{"type":"system","subtype":"init","cwd":"/work/late","session_id":"5b2d3c1e-0000-4000-8000-000000000001"}`))
	c.Native([]byte(`{"type":"assistant","message":{"content":[{"type":"text","text":"edit /work/late/x.go"}]}}`))
	zero := 0
	if err := c.Close(capture.End{ExitCode: &zero, CleanEnd: true}); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// TestProjectNamedLate checks that in a file the project root the capture
// names replaces paths in the records before the one naming it too, both
// when it is found by holding records (a few records in) and when it is
// found by searching the file (past MaxHeld), and that a pipe, which
// cannot be read ahead, gets it from that record on.
func TestProjectNamedLate(t *testing.T) {
	for _, c := range []struct {
		name    string
		filler  int
		maxHeld int
		pipe    bool
		early   string // what the first hook line must read
	}{
		{"held", 0, 0, false, "read <PROJECT>/main.go"},
		{"searched past MaxHeld", 20000, 4096, false, "read <PROJECT>/main.go"},
		{"pipe", 0, 0, true, "read /work/late/main.go"},
	} {
		t.Run(c.name, func(t *testing.T) {
			in := lateProjectCapture(t, c.filler)
			var r io.Reader = bytes.NewReader(in)
			if c.pipe {
				r = struct{ io.Reader }{r}
			}
			var out bytes.Buffer
			rep, err := sanitize.Sanitize(r, "late.jsonl", &out, sanitize.Options{DefaultProject: "/elsewhere", MaxHeld: c.maxHeld})
			if err != nil {
				t.Fatal(err)
			}
			if rep.Project != "/work/late" {
				t.Errorf("project %q, want /work/late", rep.Project)
			}
			if !strings.Contains(out.String(), `"output":"`+c.early+`"`) {
				t.Errorf("first hook line does not read %q:\n%s", c.early, out.String())
			}
			if !strings.Contains(out.String(), `"text":"edit <PROJECT>/x.go"`) {
				t.Errorf("the answer after init keeps the project path:\n%s", out.String())
			}
			if c.pipe {
				return
			}
			// Held or searched, the output is the same as with a MaxHeld
			// too small to hold anything.
			var again bytes.Buffer
			if _, err := sanitize.Sanitize(bytes.NewReader(in), "late.jsonl", &again, sanitize.Options{DefaultProject: "/elsewhere", MaxHeld: 1}); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(out.Bytes(), again.Bytes()) {
				t.Errorf("holding and searching differ:\n%s\n---\n%s", out.Bytes(), again.Bytes())
			}
		})
	}
}
