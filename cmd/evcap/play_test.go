package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/evcap/evcap/envelope"
	"github.com/google/go-cmp/cmp"
	"github.com/tidwall/gjson"
)

// interactiveCapture is a synthetic stream-json session in the shape the
// Claude Agent SDK drives: the SDK's initialize handshake, a user message,
// a can_use_tool permission request answered on stdin, the result, and
// the SDK closing stdin. Timestamps are 1 s apart.
func interactiveCapture(t *testing.T) []byte {
	t.Helper()
	var buf bytes.Buffer
	base := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	w := envelope.NewWriter(&buf, envelope.WriterOptions{CaptureID: "01JDXTEST0000000000000000", FlushInterval: -1})
	i := 0
	add := func(stage envelope.Stage, eventType, payload string) {
		i++
		rec := envelope.Record{Provider: "claude", Stage: stage, EventType: eventType, Payload: []byte(payload),
			Timestamp: envelope.FormatTimestamp(base.Add(time.Duration(i) * time.Second))}
		if _, err := w.Write(&rec); err != nil {
			t.Fatal(err)
		}
	}
	add(envelope.StageMeta, envelope.EventCaptureStart, `{"provider":"claude"}`)
	add(envelope.StageNativeOut, "control_request", `{"request_id":"rec-1","type":"control_request","request":{"subtype":"initialize","hooks":null}}`)
	add(envelope.StageNativeIn, "control_response", `{"type":"control_response","response":{"subtype":"success","request_id":"rec-1","response":{"commands":[]}}}`)
	add(envelope.StageNativeOut, "user", `{"type":"user","session_id":"","message":{"role":"user","content":"list the files"},"parent_tool_use_id":null}`)
	add(envelope.StageNativeIn, "system/init", `{"type":"system","subtype":"init","session_id":"s1"}`)
	add(envelope.StageNativeIn, "control_request", `{"type":"control_request","request_id":"cli-7","request":{"subtype":"can_use_tool","tool_name":"Bash","input":{"command":"ls"}}}`)
	add(envelope.StageNativeOut, "control_response", `{"type":"control_response","response":{"subtype":"success","request_id":"cli-7","response":{"behavior":"allow","updatedInput":{"command":"ls"}}}}`)
	add(envelope.StageNativeIn, envelope.EventStderr, `"a warning"`)
	add(envelope.StageNativeIn, "result/success", `{"type":"result","subtype":"success","session_id":"s1"}`)
	add(envelope.StageNativeOut, envelope.EventInputClosed, `null`)
	add(envelope.StageMeta, envelope.EventCaptureEnd, `{"exitCode":0,"cleanEnd":true}`)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// step is one input of the integration: send (or, when "", close stdin)
// once play wrote a line of type waitType ("" at once).
type step struct {
	waitType string // send after an output line of this type
	send     string // "" closes stdin
}

// runInteractive runs play on capture with the integration's steps on its
// stdin and returns the stdout lines, stderr and play's error.
func runInteractive(t *testing.T, capture []byte, steps []step, opts playOptions) ([]string, string, error) {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	var errOut bytes.Buffer
	done := make(chan error, 1)
	go func() {
		err := play(context.Background(), streams{in: inR, out: outW, err: &errOut}, bytes.NewReader(capture), "c.jsonl", opts)
		outW.Close()
		inR.Close()
		done <- err
	}()
	var got []string
	sc := bufio.NewScanner(outR)
	k := 0
	send := func() {
		for k < len(steps) && (steps[k].waitType == "" || (len(got) > 0 && gjson.Get(got[len(got)-1], "type").String() == steps[k].waitType)) {
			if steps[k].send == "" {
				inW.Close()
			} else {
				io.WriteString(inW, steps[k].send+"\n")
			}
			k++
		}
	}
	send() // play reads stdin before it writes anything here
	for sc.Scan() {
		got = append(got, sc.Text())
		send()
	}
	err := <-done
	inW.Close()
	return got, errOut.String(), err
}

func noSleep(context.Context, time.Duration) error { return nil }

// TestPlayInteractive: play answers the SDK's initialize under the SDK's
// own request id, waits for the user message and the permission answer
// before writing what the CLI wrote after them, and ends when stdin does.
func TestPlayInteractive(t *testing.T) {
	var slept []time.Duration
	opts := playOptions{stage: envelope.StageNativeIn, factor: 2, idleLimit: 1500 * time.Millisecond,
		sleep: func(_ context.Context, d time.Duration) error { slept = append(slept, d); return nil }}
	got, stderr, err := runInteractive(t, interactiveCapture(t), []step{
		{"", `{"request_id":"live-42","type":"control_request","request":{"subtype":"initialize","hooks":null}}`},
		{"control_response", `{"type":"user","session_id":"","message":{"role":"user","content":"list the files"},"parent_tool_use_id":null}`},
		{"control_request", `{"type":"control_response","response":{"subtype":"success","request_id":"cli-7","response":{"behavior":"allow","updatedInput":{"command":"ls"}}}}`},
		{"result", ""},
	}, opts)
	if err != nil {
		t.Fatalf("play: %v", err)
	}
	want := []string{"control_response", "system", "control_request", "result"}
	if len(got) != len(want) {
		t.Fatalf("play wrote %d lines, want %d: %q", len(got), len(want), got)
	}
	for i, w := range want {
		if typ := gjson.Get(got[i], "type").String(); typ != w {
			t.Errorf("line %d has type %q, want %q", i+1, typ, w)
		}
	}
	if id := gjson.Get(got[0], "response.request_id").String(); id != "live-42" {
		t.Errorf("the initialize answer carries request_id %q, want the SDK's live-42", id)
	}
	if stderr != "a warning\n" {
		t.Errorf("stderr %q", stderr)
	}
	// Pauses count from each input: each of the five output lines came 1 s
	// after the record before it (an input, or an output line), which at
	// half speed is 2 s, capped by the idle limit at 1.5 s.
	if len(slept) != 5 {
		t.Errorf("paused %d times, want 5: %v", len(slept), slept)
	}
	for _, d := range slept {
		if d != 1500*time.Millisecond {
			t.Errorf("paused %v, want 1.5s each: %v", d, slept)
			break
		}
	}
}

// TestPlayInputDiffers: an answer that differs from the recorded one ends
// play with an error naming the expected line.
func TestPlayInputDiffers(t *testing.T) {
	opts := playOptions{stage: envelope.StageNativeIn, sleep: noSleep}
	_, _, err := runInteractive(t, interactiveCapture(t), []step{
		{"", `{"request_id":"x","type":"control_request","request":{"subtype":"initialize"}}`},
		{"control_response", `{"type":"user","message":{"role":"user","content":"list the files"}}`},
		{"control_request", `{"type":"control_response","response":{"subtype":"success","request_id":"cli-7","response":{"behavior":"deny","message":"no"}}}`},
	}, opts)
	var ee *exitError
	if !errors.As(err, &ee) || ee.code != 1 {
		t.Fatalf("play returned %v, want an exit error 1", err)
	}
	msg := err.Error()
	for _, s := range []string{"sequence 7", `behavior "deny", expected "allow"`, `expected {"type":"control_response"`} {
		if !strings.Contains(msg, s) {
			t.Errorf("the error does not say %q:\n%s", s, msg)
		}
	}
}

// TestPlayInputEndsEarly: stdin closing before the capture's next input
// is an error naming the line that was due.
func TestPlayInputEndsEarly(t *testing.T) {
	opts := playOptions{stage: envelope.StageNativeIn, sleep: noSleep}
	_, _, err := runInteractive(t, interactiveCapture(t), []step{
		{"", `{"request_id":"x","type":"control_request","request":{"subtype":"initialize"}}`},
		{"control_response", ""},
	}, opts)
	if err == nil || !strings.Contains(err.Error(), `the input ended; expected {"type":"user"`) {
		t.Fatalf("play returned %v", err)
	}
}

func TestParseSpeed(t *testing.T) {
	for in, want := range map[string]float64{"1": 1, "2": 0.5, "0.5": 2, "max": 0, "10": 0.1} {
		got, err := parseSpeed(in)
		if err != nil || got != want {
			t.Errorf("parseSpeed(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"0", "-1", "fast", "NaN", "Inf"} {
		if _, err := parseSpeed(in); err == nil {
			t.Errorf("parseSpeed(%q) accepted", in)
		}
	}
}

// TestPlaySanitizedCaptureKeepsItsTiming: a sanitized capture holds
// offsets from its first record ("+0.203s") rather than wall times; play
// pauses between its lines as long as the offsets say, as it does for a
// raw capture's times.
func TestPlaySanitizedCaptureKeepsItsTiming(t *testing.T) {
	const path = "../../export/testdata/claude-subagent.capture.jsonl"
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var want []time.Duration
	var last time.Time
	rd := envelope.NewReader(bytes.NewReader(raw), path, envelope.ReaderOptions{})
	for {
		rec, err := rd.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if rec.Stage != envelope.StageNativeIn {
			continue
		}
		at, offset, err := envelope.ParseTimestamp(rec.Timestamp)
		if err != nil || !offset {
			t.Fatalf("sequence %d: timestamp %q is not an offset (%v)", rec.Sequence, rec.Timestamp, err)
		}
		if !last.IsZero() && at.After(last) {
			want = append(want, at.Sub(last))
		}
		last = at
	}
	var slept []time.Duration
	opts := playOptions{stage: envelope.StageNativeIn, factor: 1,
		sleep: func(_ context.Context, d time.Duration) error { slept = append(slept, d); return nil }}
	var out bytes.Buffer
	if err := play(context.Background(), streams{out: &out, err: io.Discard}, bytes.NewReader(raw), path, opts); err != nil {
		t.Fatal(err)
	}
	var total time.Duration
	for _, d := range want {
		total += d
	}
	if len(want) < 3 || total < 100*time.Millisecond {
		t.Fatalf("the capture's native lines span %v in %d pauses; want a capture with timing", total, len(want))
	}
	if d := cmp.Diff(want, slept); d != "" {
		t.Errorf("pauses (-offsets +play):\n%s", d)
	}
}
