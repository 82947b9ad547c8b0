package capture

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/iotest"
	"time"

	"github.com/evcap/evcap/envelope"
	"github.com/evcap/evcap/event"
	"github.com/evcap/evcap/redact"
)

func clock() time.Time { return time.Date(2026, 11, 29, 19, 0, 0, 0, time.UTC) }

func readCapture(t *testing.T, r io.Reader) []*envelope.Record {
	t.Helper()
	rd := envelope.NewReader(r, "capture", envelope.ReaderOptions{})
	var out []*envelope.Record
	for {
		rec, err := rd.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatalf("capture does not read back: %v", err)
		}
		out = append(out, rec)
	}
}

// TestConcurrentTapsGaplessWholeLines drives the three taps from 8
// goroutines at once and checks every record is a whole line and the
// sequence numbers have no gap and no repeat.
func TestConcurrentTapsGaplessWholeLines(t *testing.T) {
	var file bytes.Buffer
	w := envelope.NewWriter(&lockedWriter{w: &file}, envelope.WriterOptions{CaptureID: "C", Now: clock, FlushInterval: time.Millisecond})
	c := New(w, Options{Provider: "claude", Now: clock})
	const perWorker = 500
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			var native bytes.Buffer
			for i := 0; i < perWorker; i++ {
				fmt.Fprintf(&native, `{"type":"text","worker":%d,"i":%d,"pad":"%s"}`+"\n", g, i, strings.Repeat("x", i%97))
			}
			r := c.WrapReader(&native)
			emit := c.WrapEvents(func(event.Event) {})
			legacy := c.WrapLegacy(io.Discard)
			buf := make([]byte, 7+g) // odd read sizes split lines everywhere
			for i := 0; ; i++ {
				_, err := r.Read(buf)
				if err == io.EOF {
					break
				}
				if i%3 == 0 {
					emit(event.Event{Kind: event.KindText, Phase: event.PhaseDelta, Text: fmt.Sprint(g, i)})
					fmt.Fprintf(legacy, "[CONTENT_DELTA] %q\n", fmt.Sprint(g, i))
				}
			}
		}(g)
	}
	wg.Wait()
	if err := c.Close(End{CleanEnd: true}); err != nil {
		t.Fatal(err)
	}
	for i, line := range bytes.Split(bytes.TrimSuffix(file.Bytes(), []byte("\n")), []byte("\n")) {
		if _, err := envelope.ParseRecord(line); err != nil {
			t.Fatalf("line %d is not a whole record: %v", i+1, err)
		}
	}
	recs := readCapture(t, bytes.NewReader(file.Bytes()))
	counts := map[envelope.Stage]int{}
	for i, rec := range recs {
		if rec.Sequence != int64(i+1) {
			t.Fatalf("record %d has sequence %d: gap or repeat", i+1, rec.Sequence)
		}
		counts[rec.Stage]++
	}
	if counts[envelope.StageNativeIn] != 8*perWorker {
		t.Errorf("native_in records = %d, want %d", counts[envelope.StageNativeIn], 8*perWorker)
	}
	if counts[envelope.StageNormalizedOut] == 0 || counts[envelope.StageNormalizedOut] != counts[envelope.StageLegacyOut] {
		t.Errorf("normalized_out = %d, legacy_out = %d, want equal and non-zero", counts[envelope.StageNormalizedOut], counts[envelope.StageLegacyOut])
	}
	last := recs[len(recs)-1]
	if last.EventType != envelope.EventCaptureEnd {
		t.Errorf("last record is %s, want capture.end", last.EventType)
	}
}

// lockedWriter counts Write calls that do not end in a newline: the
// envelope writer must hand over whole lines only.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(p) > 0 && p[len(p)-1] != '\n' {
		panic("a write ended mid-line")
	}
	return l.w.Write(p)
}

func TestTapsPassThroughUnchanged(t *testing.T) {
	input := "{\"type\":\"a\"}\nnot json\r\n\xff\xfe binary\n{\"type\":\"system\",\"subtype\":\"init\"}\nlast line without newline"
	var file bytes.Buffer
	c := New(envelope.NewWriter(&file, envelope.WriterOptions{CaptureID: "C", Now: clock}), Options{Provider: "claude"})
	got, err := io.ReadAll(c.WrapReader(iotest.OneByteReader(strings.NewReader(input))))
	if err != nil || string(got) != input {
		t.Fatalf("WrapReader changed the stream: %q, %v", got, err)
	}
	var legacyOut bytes.Buffer
	lw := c.WrapLegacy(&legacyOut)
	io.WriteString(lw, "[STREAM_START]\n[CONTENT_DEL")
	io.WriteString(lw, "TA] \"hi\"\n")
	if legacyOut.String() != "[STREAM_START]\n[CONTENT_DELTA] \"hi\"\n" {
		t.Fatalf("WrapLegacy changed the writes: %q", legacyOut.String())
	}
	if err := c.Close(End{}); err != nil {
		t.Fatal(err)
	}
	recs := readCapture(t, &file)
	var natives []string
	var types []string
	for _, r := range recs {
		if r.Stage == envelope.StageNativeIn {
			natives = append(natives, string(envelope.DecodeNativeLine(r.EventType, r.Payload)))
			types = append(types, r.EventType)
		}
	}
	want := strings.Split(input, "\n")
	if strings.Join(natives, "\n") != strings.Join(want, "\n") {
		t.Fatalf("native_in records do not rebuild the input:\n got %q\nwant %q", natives, want)
	}
	if strings.Join(types, ",") != "a,non_json,non_json,system/init,non_json" {
		t.Fatalf("event types = %v", types)
	}
	if recs[len(recs)-2].EventType != "[CONTENT_DELTA]" || string(recs[len(recs)-2].Payload) != `"[CONTENT_DELTA] \"hi\""` {
		t.Fatalf("legacy record = %s %s", recs[len(recs)-2].EventType, recs[len(recs)-2].Payload)
	}
}

func TestNilCapturerIsNoOp(t *testing.T) {
	c, err := FromEnv(func(string) string { return "" }, Options{})
	if err != nil || c != nil {
		t.Fatalf("FromEnv with EVCAP_CAPTURE unset = %v, %v; want nil, nil", c, err)
	}
	r := strings.NewReader("x\n")
	if c.WrapReader(r) != io.Reader(r) {
		t.Error("nil Capturer wrapped the reader")
	}
	called := false
	c.WrapEvents(func(event.Event) { called = true })(event.Event{})
	if !called {
		t.Error("nil Capturer swallowed an event")
	}
	if c.Native([]byte("x")) != 0 || c.Close(End{}) != nil {
		t.Error("nil Capturer did something")
	}
}

func TestFromEnvDirectoryCreatesDistinctFiles(t *testing.T) {
	dir := t.TempDir()
	env := func(k string) string {
		if k == EnvVar {
			return dir
		}
		return ""
	}
	var paths []string
	for i := 0; i < 2; i++ {
		c, err := FromEnv(env, Options{Provider: "codex"})
		if err != nil {
			t.Fatal(err)
		}
		c.Begin(Start{EvcapVersion: "test", Argv: []string{"codex", "exec", "--json"}})
		c.Native([]byte(`{"type":"turn.started"}`))
		code := 0
		if err := c.Close(End{ExitCode: &code, CleanEnd: true}); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, c.Path())
	}
	if paths[0] == paths[1] || filepath.Dir(paths[0]) != dir {
		t.Fatalf("capture paths %v", paths)
	}
	f, err := os.Open(paths[0])
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs := readCapture(t, f)
	if len(recs) != 3 || recs[0].EventType != "capture.start" || recs[2].EventType != "capture.end" {
		t.Fatalf("records: %d", len(recs))
	}
	if !envelope.ValidCaptureID(recs[0].CaptureID) {
		t.Errorf("capture id %q is not a ULID", recs[0].CaptureID)
	}
	if !strings.Contains(string(recs[2].Payload), `"counts":{"meta":2,"native_in":1}`) {
		t.Errorf("capture.end payload %s lacks the stage counts", recs[2].Payload)
	}
}

func TestRedactHookSeesEveryPayload(t *testing.T) {
	var file bytes.Buffer
	hook := func(stage envelope.Stage, p []byte) ([]byte, []envelope.Redaction) {
		if !bytes.Contains(p, []byte("hunter2")) {
			return p, nil
		}
		return bytes.ReplaceAll(p, []byte("hunter2"), []byte("[REDACTED:test]")),
			[]envelope.Redaction{{Rule: "test", Pointer: "", Count: 1, OriginalLength: 7}}
	}
	c := New(envelope.NewWriter(&file, envelope.WriterOptions{CaptureID: "C"}), Options{Provider: "x", Redact: hook})
	c.Native([]byte(`{"type":"t","pw":"hunter2"}`))
	c.Normalized(event.Event{Kind: event.KindText, Phase: event.PhaseDelta, Text: "hunter2"})
	c.Legacy([]byte(`[CONTENT_DELTA] "hunter2"`), nil)
	if err := c.Close(End{}); err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(file.Bytes(), []byte("hunter2")) {
		t.Fatalf("secret reached the file:\n%s", file.String())
	}
	recs := readCapture(t, &file)
	for _, r := range recs[:3] {
		if len(r.Redactions) != 1 {
			t.Errorf("%s record has ledger %v", r.Stage, r.Redactions)
		}
	}
	if got := recs[1].Cause; len(got) != 1 || got[0] != 1 {
		t.Errorf("normalized_out cause = %v, want [1] (the last native line)", got)
	}
}

func TestRedactHookWithRealRules(t *testing.T) {
	r, err := redact.New(redact.Options{Home: "/home/alice"})
	if err != nil {
		t.Fatal(err)
	}
	// A fake key assembled at run time, so the repository holds no key shape.
	key := "sk-ant-api03-" + strings.Repeat("Ab3x", 20) + "-Q1w2E3r4AA"
	var file bytes.Buffer
	c := New(envelope.NewWriter(&file, envelope.WriterOptions{CaptureID: "C"}), Options{Provider: "claude", Redact: RedactHook(r)})
	c.Native([]byte(`{"type":"user","message":{"content":"export ANTHROPIC_API_KEY=` + key + ` in /home/alice/src"}}`))
	if err := c.Close(End{}); err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(file.Bytes(), []byte(key)) || bytes.Contains(file.Bytes(), []byte("/home/alice")) {
		t.Fatalf("secret or home path reached the file:\n%s", file.String())
	}
	recs := readCapture(t, &file)
	if len(recs[0].Redactions) == 0 || recs[0].Redactions[0].Pointer != "/message/content" {
		t.Fatalf("ledger = %+v", recs[0].Redactions)
	}
	if !bytes.Contains(recs[0].Payload, []byte("<HOME>/src")) {
		t.Fatalf("payload = %s", recs[0].Payload)
	}
}
