package record

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/evcap/evcap/envelope"
	"github.com/evcap/evcap/redact"
	"github.com/tidwall/gjson"
)

// pacerEnv makes the test binary a child that writes the lines of a file
// to stdout at fixed intervals (see TestHelperPacer).
const pacerEnv = "EVCAP_TEST_PACER"

// TestHelperPacer is not a test: run as a child with EVCAP_TEST_PACER=FILE
// it writes the lines of FILE to stdout, line i at start + i*100 ms (so the
// spacing does not drift with scheduling), and 50 ms after every fifth line
// one stderr line; at the end it writes when it wrote each line to
// FILE.times and exits.
func TestHelperPacer(t *testing.T) {
	src := os.Getenv(pacerEnv)
	if src == "" {
		t.Skip("helper process only")
	}
	f, err := os.Open(src)
	if err != nil {
		os.Exit(3)
	}
	start := time.Now()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 16<<20)
	var wrote []byte
	for i := 0; sc.Scan(); i++ {
		time.Sleep(time.Until(start.Add(time.Duration(i) * 100 * time.Millisecond)))
		os.Stdout.Write(append(sc.Bytes(), '\n'))
		wrote = append(wrote, time.Now().Format(time.RFC3339Nano)+"\n"...)
		if i%5 == 4 {
			time.Sleep(time.Until(start.Add(time.Duration(i)*100*time.Millisecond + 50*time.Millisecond)))
			fmt.Fprintf(os.Stderr, "after line %d\n", i+1)
		}
	}
	if os.WriteFile(src+".times", wrote, 0o600) != nil {
		os.Exit(4)
	}
	os.Exit(0)
}

// TestArrivalTimestampsUnderRedaction records a Claude partial-messages
// stream whose lines come 100 ms apart, with redaction on. The redactor
// holds text deltas back until their block has enough text after them; the
// records must still carry the time each line arrived: 100 ± 10 ms apart,
// and on a loaded machine, where the child itself wakes late, as far apart
// as the child wrote them ± 10 ms. Sequence must follow arrival across
// stdout and stderr.
func TestArrivalTimestampsUnderRedaction(t *testing.T) {
	if testing.Short() {
		t.Skip("takes 3 s")
	}
	raw, err := os.ReadFile(filepath.Join(corpus, "claude/long-text-partial.stdout.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	// Lines 1-30: init, status, message_start and a run of thinking and
	// text deltas the redactor holds.
	var keep []byte
	n := 0
	for i, b := range raw {
		if b == '\n' {
			n++
			if n == 30 {
				keep = raw[:i+1]
				break
			}
		}
	}
	src := filepath.Join(t.TempDir(), "lines.jsonl")
	if err := os.WriteFile(src, keep, 0o600); err != nil {
		t.Fatal(err)
	}
	red, err := redact.New(redact.Options{Project: "/tmp/realcli/runs/claude/long-text-partial/project"})
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(pacerEnv, src)
	// A timing bound on a shared machine: the run is tried up to three
	// times and must meet it once (timestamps taken at release would miss
	// it every time: deltas are held until their block ends).
	var problems []string
	for try := 1; try <= 3; try++ {
		problems = nil
		fail := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
		arrivalRun(t, src, red, fail)
		if len(problems) == 0 {
			return
		}
		t.Logf("try %d: %d problems, first: %s", try, len(problems), problems[0])
	}
	for _, p := range problems {
		t.Error(p)
	}
}

// arrivalRun records one paced run and reports what is off through fail.
func arrivalRun(t *testing.T, src string, red *redact.Redactor, fail func(string, ...any)) {
	out := filepath.Join(t.TempDir(), "c.jsonl")
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	res, err := Command([]string{self, "-test.run=^TestHelperPacer$"}, Options{NewNormalizer: allNormalizers, Output: out, Redactor: red,
		Lookahead: 1 << 20}) // hold every delta until its block ends
	if err != nil || res.ExitCode != 0 {
		t.Fatalf("record: %v, exit %d, notes %v", err, res.ExitCode, res.Notes)
	}
	recs := readCapture(t, out)
	timesRaw, err := os.ReadFile(src + ".times")
	if err != nil {
		t.Fatal(err)
	}
	var wrote []time.Time
	for _, l := range strings.Fields(string(timesRaw)) {
		w, err := time.Parse(time.RFC3339Nano, l)
		if err != nil {
			t.Fatal(err)
		}
		wrote = append(wrote, w)
	}
	var prev, prevAny time.Time
	var worst, worstVsChild time.Duration
	stdout, stderr := 0, 0
	for _, r := range recs {
		at, err := time.Parse(time.RFC3339Nano, r.Timestamp)
		if err != nil {
			t.Fatalf("record %d: timestamp %q: %v", r.Sequence, r.Timestamp, err)
		}
		if r.Stage != envelope.StageNativeIn {
			continue
		}
		if at.Before(prevAny) {
			fail("record %d (%s) arrived at %s, before the record written ahead of it (%s)", r.Sequence, r.EventType, at.Format("15:04:05.000"), prevAny.Format("15:04:05.000"))
		}
		prevAny = at
		if r.EventType == envelope.EventStderr {
			stderr++
			want := "after line " + strconv.Itoa(stdout)
			if got := string(envelope.DecodeNativeLine(r.EventType, r.Payload)); got != want && arrivalSlack < 50*time.Millisecond {
				fail("record %d: stderr %q where %q was due", r.Sequence, got, want)
			}
			continue
		}
		stdout++
		if !prev.IsZero() && stdout <= len(wrote) {
			gap := at.Sub(prev)
			child := wrote[stdout-1].Sub(wrote[stdout-2])
			off := (gap - 100*time.Millisecond).Abs()
			vs := (gap - child).Abs()
			worst, worstVsChild = max(worst, off), max(worstVsChild, vs)
			if off > arrivalSlack && vs > arrivalSlack {
				fail("native_in %d (sequence %d, %s): %v after the previous line; the child wrote it %v after; want 100 ms or the child's spacing ± %v", stdout, r.Sequence, r.EventType, gap, child, arrivalSlack)
			}
		}
		prev = at
	}
	if stdout != 30 || stderr != 6 || len(wrote) != 30 {
		t.Fatalf("%d stdout and %d stderr records, %d write times; want 30, 6, 30", stdout, stderr, len(wrote))
	}
	t.Logf("spacing of the 30 native_in timestamps: at most %v from 100 ms, at most %v from the child's own spacing", worst, worstVsChild)
}

// TestStdinRecordedAsNativeOut pipes two stream-json input lines into a
// child that echoes them: each is recorded as native_out, byte for byte,
// before the native_in line the child printed in answer, then the end of
// the input as native_out stdin.closed; the child gets
// exactly the bytes, and a token in the input is redacted.
func TestStdinRecordedAsNativeOut(t *testing.T) {
	red, err := redact.New(redact.Options{})
	if err != nil {
		t.Fatal(err)
	}
	inR, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	lines := []string{
		`{"type":"user","message":{"role":"user","content":"hi"}}`,
		`{"type":"control_response","response":{"subtype":"success","request_id":"r1","response":{"behavior":"allow","note":"ghp_abcdefghijklmnopqrstuvwxyz0123456789"}}}`,
	}
	out := filepath.Join(t.TempDir(), "c.jsonl")
	// Each input line (and then the end of the input) is written once the
	// child's echo of the one before is in the capture, so the expected
	// order does not depend on how fast the child runs.
	fed := make(chan error, 1)
	go func() {
		defer inW.Close()
		for i, echo := range []string{"user", "control_response"} {
			inW.WriteString(lines[i] + "\n")
			if err := waitRecorded(out, envelope.StageNativeIn, echo); err != nil {
				fed <- err
				return
			}
		}
		fed <- nil
	}()
	var echoed lockedWriter
	res, err := Command([]string{"cat"}, Options{Output: out, Redactor: red, Stdin: inR, RecordStdin: true, Passthrough: &echoed})
	inR.Close()
	if err != nil || res.ExitCode != 0 {
		t.Fatalf("record: %v, exit %d", err, res.ExitCode)
	}
	if err := <-fed; err != nil {
		t.Fatalf("the child's echo: %v", err)
	}
	if got, want := string(echoed.snapshot()), lines[0]+"\n"+lines[1]+"\n"; got != want {
		t.Errorf("the child read %q, want %q", got, want)
	}
	var order []string
	for _, r := range readCapture(t, out) {
		if r.Stage == envelope.StageNativeOut || r.Stage == envelope.StageNativeIn {
			order = append(order, string(r.Stage)+" "+r.EventType)
		}
		if r.Stage == envelope.StageNativeOut && r.EventType == "control_response" {
			if got := string(r.Payload); got == lines[1] || len(r.Redactions) == 0 {
				t.Errorf("the control_response was not redacted: %s", got)
			}
		}
	}
	want := []string{"native_out user", "native_in user", "native_out control_response", "native_in control_response", "native_out stdin.closed"}
	if fmt.Sprint(order) != fmt.Sprint(want) {
		t.Errorf("records %v, want %v", order, want)
	}
}

// TestPermissionAnswerNormalized: the integration's control_response to a
// can_use_tool request, written to the agent's stdin, becomes the
// permission's completed event (cause: the native_out record).
func TestPermissionAnswerNormalized(t *testing.T) {
	script := `read -r line; echo '{"type":"control_request","request_id":"r1","request":{"subtype":"can_use_tool","tool_name":"Write","input":{"file_path":"notes.md"},"tool_use_id":"toolu_1"}}'; read -r line; echo '{"type":"result","subtype":"success","is_error":false,"result":"ok","session_id":"s1"}'`
	inR, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "c.jsonl")
	// The answer is written once the request is in the capture, as an
	// integration answers it after reading it.
	fed := make(chan error, 1)
	go func() {
		defer inW.Close()
		inW.WriteString(`{"type":"user","message":{"role":"user","content":"write notes"}}` + "\n")
		if err := waitRecorded(out, envelope.StageNativeIn, "control_request"); err != nil {
			fed <- err
			return
		}
		inW.WriteString(`{"type":"control_response","response":{"subtype":"success","request_id":"r1","response":{"behavior":"allow","updatedInput":{"file_path":"notes.md"}}}}` + "\n")
		fed <- nil
	}()
	res, err := Command([]string{"sh", "-c", script}, Options{Provider: "claude", NewNormalizer: allNormalizers, Output: out, Stdin: inR, RecordStdin: true})
	inR.Close()
	if err != nil || res.ExitCode != 0 {
		t.Fatalf("record: %v, exit %d", err, res.ExitCode)
	}
	if err := <-fed; err != nil {
		t.Fatalf("the permission request: %v", err)
	}
	recs := readCapture(t, out)
	var answer int64
	var perms []string
	for _, r := range recs {
		if r.Stage == envelope.StageNativeOut && r.EventType == "control_response" {
			answer = r.Sequence
		}
		if r.Stage == envelope.StageNormalizedOut && r.EventType == "permission" {
			perms = append(perms, fmt.Sprintf("%s cause=%v", r.Payload, r.Cause))
		}
	}
	if answer == 0 || len(perms) != 2 {
		t.Fatalf("control_response record %d; permission events %q", answer, perms)
	}
	if want := fmt.Sprintf("cause=[%d]", answer); !strings.Contains(perms[1], `"phase":"completed"`) || !strings.Contains(perms[1], `"reply":"allow"`) || !strings.HasSuffix(perms[1], want) {
		t.Errorf("the reply event is %s, want a completed allow caused by %d", perms[1], answer)
	}
}

// recordedGuard bounds waitRecorded: a hang guard only, far above the
// milliseconds the wait takes even on a loaded machine.
const recordedGuard = 30 * time.Second

// waitRecorded waits until the capture being written at path holds a
// whole record of the stage whose eventType is eventType or starts with
// eventType + "/". The capture's writer flushes every 50 ms, so a record
// reaches the file soon after it is sequenced; the wait is on that
// condition, not on a guessed delay.
func waitRecorded(path string, stage envelope.Stage, eventType string) error {
	deadline := time.Now().Add(recordedGuard)
	for {
		if data, err := os.ReadFile(path); err == nil {
			if i := bytes.LastIndexByte(data, '\n'); i >= 0 {
				for _, l := range bytes.Split(data[:i], []byte("\n")) {
					et := gjson.GetBytes(l, "eventType").String()
					if gjson.GetBytes(l, "stage").String() == string(stage) && (et == eventType || strings.HasPrefix(et, eventType+"/")) {
						return nil
					}
				}
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("no %s %s record in %s after %v", stage, eventType, path, recordedGuard)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
