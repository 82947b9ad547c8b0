package capture

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/evcap/evcap/envelope"
	"github.com/evcap/evcap/event"
)

// TestStampedRecords writes every kind of record a recorder writes
// through NewFile and checks what each Stamp asks for: the arrival time,
// the cause as given (no default), a ledger taken as is without running
// the hook, a per-record Redact instead of the hook, gap records, the
// observer's view, and a capture.end of the caller's own type.
func TestStampedRecords(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.jsonl")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	hookRan := 0
	var observed []envelope.Record
	c, err := NewFile(f, Options{Provider: "claude", Now: clock,
		Redact: func(_ envelope.Stage, p []byte) ([]byte, []envelope.Redaction) {
			hookRan++
			return p, nil
		},
		Observe: func(r *envelope.Record) { observed = append(observed, *r) },
	})
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 11, 29, 19, 0, 1, 250e6, time.UTC)
	ledger := []envelope.Redaction{{Rule: "r", Pointer: "/x", Count: 1, OriginalLength: 5}}
	c.MetaWith(envelope.EventCaptureStart, Start{Provider: "claude"}, Stamp{At: at, Redacted: true})
	n, isJSON := c.NativeWith([]byte(`{"type":"system","subtype":"init","x":"<REDACTED>"}`), Stamp{At: at, Redacted: true, Ledger: ledger})
	_, textJSON := c.NativeWith([]byte("plain text"), Stamp{At: at.Add(time.Millisecond), Redacted: true})
	if !isJSON || textJSON {
		t.Errorf("NativeWith says JSON %v for a JSON line, %v for a text line", isJSON, textJSON)
	}
	c.StderrWith([]byte("warn"), Stamp{At: at, Redacted: true})
	c.InputWith([]byte(`{"type":"user"}`), Stamp{At: at, Redacted: true})
	c.InputClosed(Stamp{At: at, Redacted: true})
	c.RequestWith([]byte(`{"method":"GET","path":"/event","body":null}`), Stamp{At: at,
		Redact: func(p []byte) ([]byte, []envelope.Redaction) {
			return []byte(strings.Replace(string(p), "/event", "/<X>", 1)), ledger
		}})
	c.NormalizedWith(event.Event{Kind: event.KindInit, Phase: event.PhaseCompleted, Cause: []int64{99}}, Stamp{At: at, Cause: []int64{n}, Redacted: true})
	c.LegacyWith([]byte(`[SESSION_ID] "s"`), Stamp{At: at, Redacted: true})
	c.GapWith(Gap{Stream: "stdout", DroppedBytes: 10, DroppedLines: 2, Reason: "slow"}, Stamp{At: at, Redacted: true})
	c.SetSession("s", "")
	counts := c.Counts()
	if counts["native_in"] != 4 || counts["native_out"] != 3 || c.Sequence() != 10 {
		t.Errorf("counts %v, sequence %d", counts, c.Sequence())
	}
	if err := c.CloseWith(struct {
		End
		Extra int `json:"extra"`
	}{End: End{CleanEnd: true}, Extra: 7}, Stamp{At: at.Add(time.Second)}); err != nil {
		t.Fatal(err)
	}
	if hookRan != 1 {
		t.Errorf("the hook ran %d times, want once (capture.end, the only record without Redacted or Redact)", hookRan)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	recs := readCapture(t, strings.NewReader(string(data)))
	type want struct {
		stage, eventType, payload, ts, cause string
		ledger                               int
	}
	ts := "2026-11-29T19:00:01.250Z"
	wants := []want{
		{"meta", "capture.start", `{"evcapVersion":"","provider":"claude","os":"","arch":""}`, ts, "[]", 0},
		{"native_in", "system/init", `{"type":"system","subtype":"init","x":"<REDACTED>"}`, ts, "[]", 1},
		{"native_in", "non_json", `"plain text"`, "2026-11-29T19:00:01.251Z", "[]", 0},
		{"native_in", "stderr", `"warn"`, ts, "[]", 0},
		{"native_out", "user", `{"type":"user"}`, ts, "[]", 0},
		{"native_out", "stdin.closed", `null`, ts, "[]", 0},
		{"native_out", "http.request", `{"method":"GET","path":"/<X>","body":null}`, ts, "[]", 1},
		{"normalized_out", "init", `{"kind":"init","phase":"completed"}`, ts, "[2]", 0},
		{"legacy_out", "[SESSION_ID]", `"[SESSION_ID] \"s\""`, ts, "[]", 0},
		{"native_in", "gap", `{"stream":"stdout","droppedBytes":10,"droppedLines":2,"reason":"slow"}`, ts, "[]", 0},
		{"meta", "capture.end", `{"exitCode":null,"cleanEnd":true,"durationMs":0,"counts":null,"extra":7}`, "2026-11-29T19:00:02.250Z", "[]", 0},
	}
	if len(recs) != len(wants) {
		t.Fatalf("%d records, want %d:\n%s", len(recs), len(wants), data)
	}
	for i, w := range wants {
		r := recs[i]
		got := want{string(r.Stage), r.EventType, string(r.Payload), r.Timestamp, fmt.Sprint(r.Cause), len(r.Redactions)}
		if got != w {
			t.Errorf("record %d:\n got %+v\nwant %+v", i+1, got, w)
		}
	}
	if recs[len(recs)-1].SessionID != "s" {
		t.Errorf("capture.end has session %q, want the one set", recs[len(recs)-1].SessionID)
	}
	if len(observed) != len(recs) {
		t.Fatalf("observed %d records, %d written", len(observed), len(recs))
	}
	for i, o := range observed {
		if o.Sequence != recs[i].Sequence || o.CaptureID != recs[i].CaptureID || o.Timestamp != recs[i].Timestamp || o.CaptureID == "" {
			t.Errorf("observed record %d is %d/%s/%s, written %d/%s/%s", i+1, o.Sequence, o.CaptureID, o.Timestamp,
				recs[i].Sequence, recs[i].CaptureID, recs[i].Timestamp)
		}
	}
}
