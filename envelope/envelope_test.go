package envelope

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

var fixedClock = func() time.Time { return time.Date(2026, 11, 29, 19, 32, 5, 163_000_000, time.UTC) }

func readAll(t *testing.T, r *Reader) ([]*Record, []error) {
	t.Helper()
	var recs []*Record
	var errs []error
	for {
		rec, err := r.Next()
		if err == io.EOF {
			return recs, errs
		}
		if err != nil {
			errs = append(errs, err)
			continue
		}
		recs = append(recs, rec)
	}
}

func TestWriteReadRoundTripKeepsPayloadBytes(t *testing.T) {
	payloads := []string{
		`{"type":"system","subtype":"init","model":"claude-sonnet-4-5-20250929"}`,
		`{ "spaced" : [1, 2.50, 1e3] , "html":"<b>&</b>" }`,
		`{"type":"message","content":"caf\u00e9 – 😀 👩‍💻"}`,
		`"plain text line"`,
	}
	var buf bytes.Buffer
	w := NewWriter(&buf, WriterOptions{CaptureID: "01JDXKQ5T8M3V9ZQ7G2H4N6P8R", Now: fixedClock, FlushInterval: -1})
	for i, p := range payloads {
		seq, err := w.Write(&Record{Provider: "claude", SessionID: "s", TurnID: "1", Stage: StageNativeIn,
			EventType: "x", Payload: []byte(p), Cause: nil, Notes: fmt.Sprint("n", i)})
		if err != nil || seq != int64(i+1) {
			t.Fatalf("Write %d = %d, %v", i, seq, err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	recs, errs := readAll(t, NewReader(&buf, "mem", ReaderOptions{}))
	if len(errs) > 0 {
		t.Fatalf("errors: %v", errs)
	}
	if len(recs) != len(payloads) {
		t.Fatalf("got %d records, want %d", len(recs), len(payloads))
	}
	for i, rec := range recs {
		if string(rec.Payload) != payloads[i] {
			t.Errorf("record %d payload = %s, want byte-exact %s", i, rec.Payload, payloads[i])
		}
		if rec.Sequence != int64(i+1) || rec.Timestamp != "2026-11-29T19:32:05.163Z" || rec.SchemaVersion != 1 {
			t.Errorf("record %d header = %+v", i, rec)
		}
	}
}

func TestReaderKeepsUnknownFieldsOnRewrite(t *testing.T) {
	line := `{"schemaVersion":1,"captureId":"C","sequence":1,"timestamp":"t","provider":"p","sessionId":"","turnId":"","stage":"meta","eventType":"capture.start","payload":{},"redactions":[],"futureField":{"a":[1,2]},"z":true}`
	rec, err := ParseRecord([]byte(line))
	if err != nil {
		t.Fatal(err)
	}
	want := []Field{{Key: "futureField", Value: []byte(`{"a":[1,2]}`), RawKey: []byte(`"futureField"`)}, {Key: "z", Value: []byte(`true`), RawKey: []byte(`"z"`)}}
	if diff := cmp.Diff(want, rec.Extra); diff != "" {
		t.Fatalf("Extra mismatch (-want +got):\n%s", diff)
	}
	out := string(AppendRecord(nil, rec))
	if out != line+"\n" {
		t.Fatalf("rewrite changed the line:\n got %s\nwant %s", out, line)
	}
}

func TestReaderErrors(t *testing.T) {
	good := func(seq int) string {
		return fmt.Sprintf(`{"schemaVersion":1,"captureId":"C","sequence":%d,"timestamp":"t","provider":"p","sessionId":"","turnId":"","stage":"native_in","eventType":"e","payload":{},"redactions":[]}`, seq)
	}
	tests := []struct {
		name, input string
		wantRecs    int
		wantErr     error
		wantMsg     string
		reason      string
	}{
		{"non-JSON line", good(1) + "\nnot json at all\n" + good(2) + "\n", 2, ErrInvalidLine, "cap.jsonl:2: invalid record: not JSON",
			"a bad line is reported with its line number and reading goes on"},
		{"missing field", strings.Replace(good(1), `"eventType":"e",`, "", 1) + "\n", 0, ErrInvalidLine, "cap.jsonl:1: sequence 1: invalid record: missing required field eventType",
			"required fields are checked"},
		{"unknown version", strings.Replace(good(1), `"schemaVersion":1`, `"schemaVersion":7`, 1) + "\n", 0, ErrUnsupportedVersion, "cap.jsonl:1: sequence 1: unsupported schemaVersion 7 (this evcap reads 1)",
			"a future version is refused with a sentinel"},
		{"torn last line", good(1) + "\n" + good(2)[:40], 1, ErrTornLine, "cap.jsonl:2: torn last line (no newline at end of capture)",
			"every complete record comes before the torn-line error"},
		{"bad stage", strings.Replace(good(1), `native_in`, `sideways`, 1) + "\n", 0, ErrInvalidLine, `cap.jsonl:1: sequence 1: invalid record: unknown stage "sideways"`,
			"stages are an enum"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			recs, errs := readAll(t, NewReader(strings.NewReader(tt.input), "cap.jsonl", ReaderOptions{}))
			if len(recs) != tt.wantRecs {
				t.Errorf("%s: got %d records, want %d", tt.reason, len(recs), tt.wantRecs)
			}
			if len(errs) != 1 || !errors.Is(errs[0], tt.wantErr) || errs[0].Error() != tt.wantMsg {
				t.Fatalf("%s: errors = %v, want one %q", tt.reason, errs, tt.wantMsg)
			}
		})
	}
}

// TestReaderSixteenMiBLine checks that a line far beyond bufio.Scanner's
// default limit round-trips.
func TestReaderSixteenMiBLine(t *testing.T) {
	big := bytes.Repeat([]byte("abcdefgh"), 2<<20) // 16 MiB
	payload := append(append([]byte(`{"type":"user","output":"`), big...), `"}`...)
	var buf bytes.Buffer
	w := NewWriter(&buf, WriterOptions{CaptureID: "C", Now: fixedClock})
	for i := 0; i < 3; i++ {
		if _, err := w.Write(&Record{Provider: "claude", Stage: StageNativeIn, EventType: "user", Payload: payload}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	recs, errs := readAll(t, NewReader(&buf, "big", ReaderOptions{}))
	if len(errs) != 0 || len(recs) != 3 {
		t.Fatalf("got %d records, errors %v", len(recs), errs)
	}
	for _, r := range recs {
		if !bytes.Equal(r.Payload, payload) {
			t.Fatalf("16 MiB payload changed (len %d vs %d)", len(r.Payload), len(payload))
		}
	}
}

// TestMigrationFromSyntheticV0 registers an upgrade from a made-up version 0
// (which named the sequence "seq" and had no redaction ledger) and reads a
// mixed capture.
func TestMigrationFromSyntheticV0(t *testing.T) {
	v0 := `{"schemaVersion":0,"captureId":"C","seq":1,"timestamp":"t","provider":"p","sessionId":"","turnId":"","stage":"native_in","eventType":"e","payload":{"a":1}}`
	v1 := `{"schemaVersion":1,"captureId":"C","sequence":2,"timestamp":"t","provider":"p","sessionId":"","turnId":"","stage":"native_in","eventType":"e","payload":{"b":2},"redactions":[]}`
	up := map[int]Upgrade{0: func(line []byte) ([]byte, error) {
		s := strings.Replace(string(line), `"seq":`, `"sequence":`, 1)
		s = strings.Replace(s, `"schemaVersion":0`, `"schemaVersion":1`, 1)
		return []byte(strings.TrimSuffix(s, "}") + `,"redactions":[]}`), nil
	}}
	recs, errs := readAll(t, NewReader(strings.NewReader(v0+"\n"+v1+"\n"), "mixed", ReaderOptions{Upgrades: up}))
	if len(errs) != 0 || len(recs) != 2 {
		t.Fatalf("with upgrade: %d records, errors %v", len(recs), errs)
	}
	if recs[0].Sequence != 1 || string(recs[0].Payload) != `{"a":1}` || recs[0].SchemaVersion != 1 {
		t.Fatalf("upgraded record = %+v", recs[0])
	}
	_, errs = readAll(t, NewReader(strings.NewReader(v0+"\n"), "old", ReaderOptions{}))
	if len(errs) != 1 || !errors.Is(errs[0], ErrUnsupportedVersion) {
		t.Fatalf("without upgrade: errors %v, want ErrUnsupportedVersion", errs)
	}
}

func TestEncodeNativeLineIsLossless(t *testing.T) {
	tests := []struct {
		line string
		want NativeLine
	}{
		{`{"type":"x"}`, NativeJSON},
		{"WARNING: proceeding, even though we could not update PATH", NativeText},
		{"progress 10%\r", NativeText},
		{"\x1b[31mred\x1b[0m\x00nul", NativeText},
		{"bad \xff\xfe utf8", NativeBinary},
		{"", NativeText},
		{"42", NativeText},
		{strings.Repeat("[", 1000), NativeText},
		{"{\"type\":\"crlf\"}\r", NativeText},
		{" {\"type\":\"lead\"}", NativeText},
		{"{\"type\":\"bad \xff utf8\"}", NativeBinary},
	}
	for _, tt := range tests {
		payload, kind := EncodeNativeLine([]byte(tt.line))
		if kind != tt.want {
			t.Errorf("EncodeNativeLine(%q) kind = %v, want %v", tt.line, kind, tt.want)
		}
		et := "x"
		if kind != NativeJSON {
			et = EventNonJSON
		}
		if got := DecodeNativeLine(et, payload); string(got) != tt.line {
			t.Errorf("round trip of %q gave %q (payload %s)", tt.line, got, payload)
		}
	}
}

func TestWriterStickyError(t *testing.T) {
	w := NewWriter(failingWriter{}, WriterOptions{CaptureID: "C", FlushInterval: -1})
	if _, err := w.Write(&Record{Stage: StageMeta, EventType: "x", Payload: []byte(`{}`)}); err == nil {
		t.Fatal("first Write on a failing writer returned no error")
	}
	if _, err := w.Write(&Record{Stage: StageMeta, EventType: "x", Payload: []byte(`{}`)}); err == nil {
		t.Fatal("error is not sticky")
	}
	if err := w.Close(); err == nil {
		t.Fatal("Close hid the write error")
	}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestMarshalPayloadKeepsAngleBrackets(t *testing.T) {
	got, err := MarshalPayload(map[string]string{"path": "<PROJECT>/a&b"})
	if err != nil || string(got) != `{"path":"<PROJECT>/a&b"}` {
		t.Fatalf("MarshalPayload = %s, %v", got, err)
	}
}
