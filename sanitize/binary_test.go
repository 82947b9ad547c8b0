package sanitize_test

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/evcap/evcap/envelope"
	"github.com/evcap/evcap/redact"
	"github.com/evcap/evcap/sanitize"
	"github.com/evcap/evcap/scan"
	"github.com/google/go-cmp/cmp"
)

// nativeLineCapture builds a capture of native lines stored the way record
// stores them (envelope.EncodeNativeLine / EncodeTextLine).
func nativeLineCapture(t *testing.T, lines []string, stderr []string) []byte {
	t.Helper()
	var buf []byte
	seq := int64(0)
	add := func(eventType string, payload []byte) {
		seq++
		rec := &envelope.Record{SchemaVersion: 1, CaptureID: "01M8MMWS81JWKVK3H92CVN15WV", Sequence: seq,
			Timestamp: "2026-11-29T21:55:33.249Z", Stage: envelope.StageNativeIn, EventType: eventType,
			Payload: payload, Redactions: []envelope.Redaction{}}
		buf = envelope.AppendRecord(buf, rec)
	}
	for _, l := range lines {
		p, kind := envelope.EncodeNativeLine([]byte(l))
		et := envelope.EventNonJSON
		if kind == envelope.NativeJSON {
			et = "x"
		}
		add(et, p)
	}
	for _, l := range stderr {
		p, _ := envelope.EncodeTextLine([]byte(l))
		add(envelope.EventStderr, p)
	}
	return buf
}

func sanitizeBytes(t *testing.T, in []byte, opts sanitize.Options) []byte {
	t.Helper()
	var out bytes.Buffer
	if _, err := sanitize.Sanitize(bytes.NewReader(in), "in.jsonl", &out, opts); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// Lines that are not valid UTF-8 come out as readable, redacted text with
// a ledger entry saying how many invalid runs were replaced.
func TestSanitizeInvalidUTF8(t *testing.T) {
	key := "sk-ant-api03-" + strings.Repeat("Ab9_", 10)
	in := nativeLineCapture(t,
		[]string{"{\"type\":\"text\",\"text\":\"a\xffb\"}", "latin1\xe9 text\xc3", "ok \xef\xbf\xbd kept"},
		[]string{"err \xff\xfe\xfd " + key})
	if !utf8.Valid(in) {
		t.Fatal("the input capture itself must be valid UTF-8 (base64 payloads)")
	}
	out := sanitizeBytes(t, in, sanitize.Options{})
	if !utf8.Valid(out) {
		t.Fatalf("output is not valid UTF-8:\n%s", out)
	}
	checkValid(t, "out.jsonl", out)
	type want struct {
		payload string
		ledger  []envelope.Redaction
	}
	wants := []want{
		{"{\"type\":\"text\",\"text\":\"a\uFFFDb\"}", []envelope.Redaction{{Rule: sanitize.RuleInvalidUTF8, Count: 1, OriginalLength: 28}}},
		{"latin1\uFFFD text\uFFFD", []envelope.Redaction{{Rule: sanitize.RuleInvalidUTF8, Count: 2, OriginalLength: 13}}},
		{"ok \uFFFD kept", []envelope.Redaction{}},
		{"err \uFFFD [REDACTED:anthropic-key]", []envelope.Redaction{
			{Rule: sanitize.RuleInvalidUTF8, Count: 1, OriginalLength: 7 + len(key) + 1},
			{Rule: redact.RuleAnthropic, Count: 1, OriginalLength: len(key)}}},
	}
	lines := bytes.Split(bytes.TrimSuffix(out, []byte("\n")), []byte("\n"))
	if len(lines) != len(wants) {
		t.Fatalf("%d records out, want %d", len(lines), len(wants))
	}
	for i, line := range lines {
		rec, err := envelope.ParseRecord(line)
		if err != nil {
			t.Fatal(err)
		}
		got := string(envelope.DecodeNativeLine(rec.EventType, rec.Payload))
		if rec.Payload[0] != '"' || got != wants[i].payload {
			t.Errorf("record %d: payload %s, want the JSON string of %q", i+1, rec.Payload, wants[i].payload)
		}
		if d := cmp.Diff(wants[i].ledger, rec.Redactions); d != "" {
			t.Errorf("record %d: ledger (-want +got):\n%s", i+1, d)
		}
	}
	if again := sanitizeBytes(t, out, sanitize.Options{}); !bytes.Equal(again, out) {
		t.Errorf("not idempotent:\n%s\nthen\n%s", out, again)
	}
}

// A non-JSON line longer than MaxString is cut as a long JSON string is,
// and the sanitized capture passes evcap scan, and stays so.
func TestSanitizeLongTextLine(t *testing.T) {
	long := strings.Repeat("[", 100000)
	in := nativeLineCapture(t, []string{long, "short line"}, nil)
	out := sanitizeBytes(t, in, sanitize.Options{})
	checkValid(t, "out.jsonl", out)
	rec, err := envelope.ParseRecord(bytes.SplitN(out, []byte("\n"), 2)[0])
	if err != nil {
		t.Fatal(err)
	}
	text := string(envelope.DecodeNativeLine(rec.EventType, rec.Payload))
	head, tail := redact.DefaultMaxString/2, redact.DefaultMaxString/4
	wantText := strings.Repeat("[", head) + "[TRUNCATED:original 100000 bytes]" + strings.Repeat("[", tail)
	if text != wantText {
		t.Errorf("cut text is %d bytes starting %.60q, want %d bytes", len(text), text, len(wantText))
	}
	wantLedger := []envelope.Redaction{{Rule: redact.RuleLargeString, Count: 1, OriginalLength: 100000}}
	if d := cmp.Diff(wantLedger, rec.Redactions); d != "" {
		t.Errorf("ledger (-want +got):\n%s", d)
	}
	if findings := scanCapture(t, out, "out.jsonl", scan.Options{}); len(findings) != 0 {
		t.Errorf("output scan: %+v, want nothing", findings)
	}
	if again := sanitizeBytes(t, out, sanitize.Options{}); !bytes.Equal(again, out) {
		t.Errorf("not idempotent")
	}
}
