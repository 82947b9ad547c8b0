package record

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/evcap/evcap/envelope"
	"github.com/evcap/evcap/event"
	"github.com/evcap/evcap/normalize/claude"
	"github.com/evcap/evcap/normalize/codex"
	"github.com/evcap/evcap/normalize/gemini"
	"github.com/evcap/evcap/normalize/opencode"
	"github.com/evcap/evcap/redact"
	"github.com/tidwall/gjson"
)

// plantedSecret matches the fake keys the corpus's long-text scenario put
// into the answer.
var plantedSecret = regexp.MustCompile(`sk-ant-api03-[A-Za-z0-9_-]{20,}|AKIA[A-Z2-7]{16}`)

func allNormalizers(p string) (event.Normalizer, error) {
	switch p {
	case "claude":
		return claude.New(), nil
	case "codex":
		return codex.New(), nil
	case "gemini":
		return gemini.New(), nil
	case "opencode":
		return opencode.New(), nil
	}
	return nil, fmt.Errorf("no normalizer for %s", p)
}

// rawDeltas joins the streamed deltas of raw provider lines.
func rawDeltas(b []byte) string {
	var sb strings.Builder
	for _, l := range bytes.Split(b, []byte("\n")) {
		v := gjson.ParseBytes(l)
		for _, p := range []string{"event.delta.text", "event.delta.thinking", "event.delta.partial_json", "properties.delta"} {
			sb.WriteString(v.Get(p).String())
		}
		if v.Get("type").String() == "message" && v.Get("delta").Bool() {
			sb.WriteString(v.Get("content").String())
		}
	}
	return sb.String()
}

// splitAcross reports a secret that no single delta holds whole.
func splitAcross(raw []byte, s string) bool {
	for _, l := range bytes.Split(raw, []byte("\n")) {
		if strings.Contains(rawDeltas(l), s) {
			return false
		}
	}
	return strings.Contains(rawDeltas(raw), s)
}

// TestRecordRedactsSplitSecrets records real CLI outputs whose secrets and
// machine paths are split across streamed deltas, with a redactor: no piece
// of them reaches any record, and the recorded normalized_out is what
// native_in normalizes to again.
func TestRecordRedactsSplitSecrets(t *testing.T) {
	for _, name := range []string{"claude/long-text-partial", "claude/tools-partial", "gemini/long-text", "opencode/long-text", "codex/long-text"} {
		t.Run(name, func(t *testing.T) {
			src := filepath.Join(corpus, name+".stdout.jsonl")
			raw, err := os.ReadFile(src)
			if err != nil {
				t.Fatal(err)
			}
			run := "/tmp/realcli/runs/" + name
			red, err := redact.New(redact.Options{Home: run + "/home", Project: run + "/project", Temp: []string{run + "/tmp", "/tmp/realcli"}})
			if err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(t.TempDir(), "c.jsonl")
			res, err := Command([]string{"cat", src}, Options{NewNormalizer: allNormalizers, Output: out, Redactor: red})
			if err != nil || res.ExitCode != 0 {
				t.Fatalf("record: %v, exit %d", err, res.ExitCode)
			}
			got, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			var leaks []string
			split := 0
			for _, s := range plantedSecret.FindAllString(string(raw)+"\n"+rawDeltas(raw), -1) {
				if splitAcross(raw, s) {
					split++
				}
				body := s[4:]
				for i := 0; i+6 <= len(body); i++ {
					leaks = append(leaks, body[i:i+6])
				}
			}
			leaks = append(leaks, "/tmp/realcli")
			for _, l := range leaks {
				if bytes.Contains(got, []byte(l)) {
					t.Fatalf("the capture holds %q", l)
				}
			}

			recs := readCapture(t, out)
			n, _ := allNormalizers(recs[1].Provider)
			var again []event.Event
			var recorded, want []string
			deltas := ""
			for _, r := range recs {
				switch r.Stage {
				case envelope.StageNativeIn:
					if r.EventType != envelope.EventStderr {
						again = append(again, n.Line(r.Sequence, envelope.DecodeNativeLine(r.EventType, r.Payload))...)
					}
				case envelope.StageNormalizedOut:
					recorded = append(recorded, string(r.Payload)+" cause="+causeString(r.Cause))
					if gjson.GetBytes(r.Payload, "phase").String() == "delta" {
						deltas += gjson.GetBytes(r.Payload, "text").String()
					}
				}
			}
			for _, e := range append(again, n.End()...) {
				c := e.Cause
				e.Cause = nil
				b, _ := envelope.MarshalPayload(e)
				want = append(want, string(b)+" cause="+causeString(c))
			}
			if len(recorded) != len(want) {
				t.Errorf("%d normalized_out records, native_in normalizes to %d events", len(recorded), len(want))
			}
			for i := range min(len(recorded), len(want)) {
				if recorded[i] != want[i] {
					t.Errorf("normalized_out %d differs from native_in normalized again:\n got %s\nwant %s", i+1, recorded[i], want[i])
					break
				}
			}
			if plantedSecret.MatchString(deltas) {
				t.Errorf("the normalized deltas joined spell a planted secret")
			}
			if notes := strings.Join(res.Notes, "\n"); strings.Contains(notes, "redacted again") || strings.Contains(notes, "in parts") {
				t.Errorf("notes: %s", notes)
			}
			t.Logf("%d records; %d planted secrets split across deltas", len(recs), split)
		})
	}
}
