package legacy_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evcap/evcap/event"
	"github.com/evcap/evcap/internal/lines"
	"github.com/evcap/evcap/render/legacy"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/sebdah/goldie/v2"
)

// The inputs are the normalized-event goldens the four normalizers commit
// for the real corpus (and their synthetic cases), so these goldens follow
// the real captures without this package importing a normalizer.
func inputs(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob("../../normalize/*/testdata/*.golden")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 20 {
		t.Fatalf("found %d normalizer goldens", len(files))
	}
	return files
}

func readEvents(t *testing.T, file string) []event.Event {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := lines.NewReader(f)
	var evs []event.Event
	for {
		line, err := r.Next()
		if errors.Is(err, io.EOF) {
			return evs
		}
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		var e event.Event
		if err := json.Unmarshal(line, &e); err != nil {
			t.Fatalf("%s:%d: %v", file, r.Line(), err)
		}
		evs = append(evs, e)
	}
}

func render(ms []legacy.Marker) []byte {
	var b strings.Builder
	for _, m := range ms {
		fmt.Fprintf(&b, "%s\t<- events %v, native %v\n", m.Line, m.From, m.Cause)
	}
	return []byte(b.String())
}

func goldenName(file string) string {
	provider := filepath.Base(filepath.Dir(filepath.Dir(file)))
	return provider + "-" + strings.TrimSuffix(filepath.Base(file), ".golden")
}

// TestGolden: the markers of every corpus capture, each followed by the
// events and native lines it came from.
func TestGolden(t *testing.T) {
	g := goldie.New(t, goldie.WithFixtureDir("testdata"), goldie.WithNameSuffix(".golden"))
	for _, file := range inputs(t) {
		t.Run(goldenName(file), func(t *testing.T) {
			g.Assert(t, goldenName(file), render(legacy.Derive(readEvents(t, file))))
		})
	}
}

// TestNoTextTwice: the text in the delta markers equals the text of the
// completed blocks, each exactly once, for every capture.
func TestNoTextTwice(t *testing.T) {
	for _, file := range inputs(t) {
		evs := readEvents(t, file)
		var want, got strings.Builder
		for _, e := range evs {
			if e.Kind == event.KindText && e.Phase == event.PhaseCompleted {
				want.WriteString(e.Text)
			}
		}
		for _, m := range legacy.Derive(evs) {
			if p, ok := strings.CutPrefix(m.Line, "[CONTENT_DELTA] "); ok {
				var s string
				if err := json.Unmarshal([]byte(p), &s); err != nil {
					t.Fatalf("%s: %q: %v", file, m.Line, err)
				}
				got.WriteString(s)
			}
		}
		// A stream torn inside a block can have deltas without a completed
		// block; all corpus captures and normalizer goldens complete theirs.
		if got.String() != want.String() {
			t.Errorf("%s: content deltas %q\nwant completed texts %q", file, got.String(), want.String())
		}
	}
}

// TestGrammar: every line is one marker of the grammar, with a valid
// payload, and the stream is framed.
func TestGrammar(t *testing.T) {
	jsonPayload := map[string]bool{"[CONTENT_DELTA]": true, "[THINKING_DELTA]": true, "[TOOL_USE]": true,
		"[TOOL_RESULT]": true, "[USAGE]": true, "[RETRY]": true, "[SEND_ERROR]": true}
	bare := map[string]bool{"[STREAM_START]": true, "[MESSAGE_START]": true, "[MESSAGE_END]": true, "[STREAM_END]": true}
	for _, file := range inputs(t) {
		ms := legacy.Derive(readEvents(t, file))
		if ms[0].Line != "[STREAM_START]" || ms[len(ms)-1].Line != "[STREAM_END]" {
			t.Errorf("%s: not framed by STREAM_START/STREAM_END", file)
		}
		open := false
		for _, m := range ms {
			name, payload, _ := strings.Cut(m.Line, " ")
			switch {
			case strings.ContainsAny(m.Line, "\n\r"):
				t.Errorf("%s: marker spans lines: %q", file, m.Line)
			case bare[name] && payload != "":
				t.Errorf("%s: %s with a payload", file, name)
			case jsonPayload[name] && !json.Valid([]byte(payload)):
				t.Errorf("%s: invalid JSON: %q", file, m.Line)
			case name == "[SESSION_ID]" && payload == "":
				t.Errorf("%s: empty session id", file)
			case !bare[name] && !jsonPayload[name] && name != "[SESSION_ID]":
				t.Errorf("%s: unknown marker %q", file, m.Line)
			}
			switch name {
			case "[MESSAGE_START]":
				if open {
					t.Errorf("%s: MESSAGE_START inside a message", file)
				}
				open = true
			case "[MESSAGE_END]":
				if !open {
					t.Errorf("%s: MESSAGE_END outside a message", file)
				}
				open = false
			}
		}
	}
}

// TestIncremental: feeding events one at a time gives what Derive gives,
// and From/Cause point at the events behind each marker.
func TestIncremental(t *testing.T) {
	for _, file := range inputs(t) {
		evs := readEvents(t, file)
		d := legacy.New()
		var got []legacy.Marker
		for _, e := range evs {
			got = append(got, d.Event(e)...)
		}
		got = append(got, d.End()...)
		if diff := cmp.Diff(legacy.Derive(evs), got); diff != "" {
			t.Errorf("%s:\n%s", file, diff)
		}
		for _, m := range got {
			for _, i := range m.From {
				if diff := cmp.Diff(evs[i].Cause, m.Cause); diff != "" {
					t.Errorf("%s: %q cause differs from event %d's:\n%s", file, m.Line, i, diff)
				}
			}
		}
	}
}

func TestHandBuilt(t *testing.T) {
	cases := []struct {
		reason string
		evs    []event.Event
		want   []string
	}{
		{
			reason: "a completed text without deltas is sent whole, once",
			evs: []event.Event{
				{Kind: event.KindText, Phase: event.PhaseCompleted, MessageID: "m1", Text: "a\n\"b\" <c>"},
			},
			want: []string{"[STREAM_START]", "[MESSAGE_START]", `[CONTENT_DELTA] "a\n\"b\" <c>"`, "[MESSAGE_END]", "[STREAM_END]"},
		},
		{
			reason: "a new message id closes the open message; a tool call is announced once",
			evs: []event.Event{
				{Kind: event.KindThinking, Phase: event.PhaseDelta, MessageID: "m1", PartID: "0", Text: "hm"},
				{Kind: event.KindThinking, Phase: event.PhaseCompleted, MessageID: "m1", PartID: "0", Text: "hm"},
				{Kind: event.KindTool, Phase: event.PhaseCompleted, MessageID: "m1", ToolCallID: "t1", Tool: &event.Tool{Name: "Bash", Summary: "ls", Input: json.RawMessage(`{"command":"ls"}`)}},
				{Kind: event.KindTool, Phase: event.PhaseCompleted, MessageID: "m1", ToolCallID: "t1", Tool: &event.Tool{Name: "Bash", Summary: "ls"}},
				{Kind: event.KindToolResult, Phase: event.PhaseCompleted, ToolCallID: "t1", ToolResult: &event.ToolResult{Output: "x", OutputBytes: 1}},
				{Kind: event.KindText, Phase: event.PhaseDelta, MessageID: "m2", Text: "ok"},
			},
			want: []string{"[STREAM_START]", "[MESSAGE_START]", `[THINKING_DELTA] "hm"`, `[TOOL_USE] {"id":"t1","name":"Bash","summary":"ls"}`,
				`[TOOL_RESULT] {"id":"t1","isError":false,"output":"x"}`, "[MESSAGE_END]", "[MESSAGE_START]", `[CONTENT_DELTA] "ok"`, "[MESSAGE_END]", "[STREAM_END]"},
		},
		{
			reason: "retry, then a fatal error, then the failed result does not repeat the error",
			evs: []event.Event{
				{Kind: event.KindInit, Phase: event.PhaseCompleted, SessionID: "s\n1"},
				{Kind: event.KindRetry, Phase: event.PhaseUpdated, Retry: &event.Retry{Attempt: 1, MaxRetries: 10, DelayMs: 593, Status: 529, Error: "overloaded"}},
				{Kind: event.KindError, Phase: event.PhaseFailed, Error: &event.Error{Type: "x", Message: "no", Fatal: true}},
				{Kind: event.KindResult, Phase: event.PhaseFailed, Result: &event.Result{Subtype: "error", IsError: true}},
			},
			want: []string{"[STREAM_START]", "[SESSION_ID] s1", `[RETRY] {"attempt":1,"maxRetries":10,"delayMs":593,"status":529,"error":"overloaded"}`,
				`[SEND_ERROR] {"type":"x","message":"no"}`, "[STREAM_END]"},
		},
		{
			reason: "a failed result with no error before it is the send error",
			evs: []event.Event{
				{Kind: event.KindResult, Phase: event.PhaseFailed, Result: &event.Result{Subtype: "incomplete", IsError: true}},
			},
			want: []string{"[STREAM_START]", `[SEND_ERROR] {"type":"incomplete","message":"incomplete"}`, "[STREAM_END]"},
		},
		{reason: "no events, no markers", want: nil},
	}
	for _, c := range cases {
		var got []string
		for _, m := range legacy.Derive(c.evs) {
			got = append(got, m.Line)
		}
		if diff := cmp.Diff(c.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", c.reason, diff)
		}
	}
}

// TestKeptMarkersStayValid: markers kept from earlier Event calls still
// say which event they came from and carry its Cause after many more
// calls (their From and Cause are never reused), through the events of
// every normalizer golden fed to one Deriver three times over.
func TestKeptMarkersStayValid(t *testing.T) {
	var evs []event.Event
	for range 3 {
		for _, file := range inputs(t) {
			evs = append(evs, readEvents(t, file)...)
		}
	}
	d := legacy.New()
	var kept []legacy.Marker
	var want [][]int64
	for i, e := range evs {
		for _, m := range d.Event(e) {
			if len(m.From) != 1 || m.From[0] != i {
				t.Fatalf("event %d: marker %q from %v", i, m.Line, m.From)
			}
			kept = append(kept, m)
			want = append(want, append([]int64(nil), e.Cause...))
		}
	}
	if len(kept) < 1000 {
		t.Fatalf("only %d markers", len(kept))
	}
	last := -1
	for k, m := range kept {
		if len(m.From) != 1 || m.From[0] < last {
			t.Fatalf("kept marker %d (%q) now says from %v, after one from event %d", k, m.Line, m.From, last)
		}
		last = m.From[0]
		if diff := cmp.Diff(want[k], m.Cause, cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("kept marker %d (%q) cause changed:\n%s", k, m.Line, diff)
		}
	}
}
