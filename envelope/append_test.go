package envelope

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// TestAppendLinesMatchEncode checks that AppendTextLine and
// AppendNativeLine give byte for byte what EncodeTextLine and
// EncodeNativeLine give, appended after what dst holds, for every kind of
// line (JSON, text, escapes, invalid UTF-8).
func TestAppendLinesMatchEncode(t *testing.T) {
	lines := []string{
		`{"type":"x"}`, `[1,2]`, "plain text", "progress 10%\r", "\x1b[31mred\x1b[0m\x00nul",
		"bad \xff\xfe utf8", "", "42", "{\"type\":\"crlf\"}\r", "{\"type\":\"bad \xff utf8\"}",
		"quote \" backslash \\ tab \t del \x7f sep \u2028 <&>", strings.Repeat("é", 3000),
	}
	prefix := []byte("held before|")
	for _, l := range lines {
		want, wantKind := EncodeTextLine([]byte(l))
		dst := append(make([]byte, 0, 4), prefix...)
		got, kind := AppendTextLine(dst, []byte(l))
		if kind != wantKind || !bytes.Equal(got, append(append([]byte(nil), prefix...), want...)) {
			t.Errorf("AppendTextLine(%q) = %q, %v; want %q, %v after the prefix", l, got, kind, want, wantKind)
		}
		want, wantKind = EncodeNativeLine([]byte(l))
		got, kind = AppendNativeLine(nil, []byte(l))
		if kind != wantKind || !bytes.Equal(got, want) {
			t.Errorf("AppendNativeLine(%q) = %q, %v; want %q, %v", l, got, kind, want, wantKind)
		}
	}
}

// countingWriter keeps each Write it is given.
type countingWriter struct{ writes [][]byte }

func (c *countingWriter) Write(p []byte) (int, error) {
	c.writes = append(c.writes, append([]byte(nil), p...))
	return len(p), nil
}

// TestWriterHugeRecordAlone checks that a record whose payload is past the
// flush threshold reaches the underlying writer in a Write of its own,
// right after one Write of the records queued before it, and that what is
// written is the records in order.
func TestWriterHugeRecordAlone(t *testing.T) {
	cw := &countingWriter{}
	w := NewWriter(cw, WriterOptions{CaptureID: "C", FlushInterval: time.Hour})
	small := &Record{Timestamp: "t", Stage: StageNativeIn, EventType: "x", Payload: []byte(`{"a":1}`)}
	huge := &Record{Timestamp: "t", Stage: StageNativeIn, EventType: "x",
		Payload: []byte(`{"a":"` + strings.Repeat("z", 2*flushThreshold) + `"}`)}
	var want []byte
	for i, r := range []*Record{small, small, huge, small} {
		seq, err := w.Write(r)
		if err != nil || seq != int64(i+1) {
			t.Fatalf("Write %d = %d, %v", i+1, seq, err)
		}
		rec := *r
		rec.SchemaVersion, rec.CaptureID, rec.Sequence = SchemaVersion, "C", seq
		want = AppendRecord(want, &rec)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if len(cw.writes) != 3 {
		t.Fatalf("%d writes, want 3 (the two records before the huge one, the huge one, the last)", len(cw.writes))
	}
	if n := bytes.Count(cw.writes[0], []byte("\n")); n != 2 {
		t.Errorf("the first write holds %d records, want 2", n)
	}
	if n := bytes.Count(cw.writes[1], []byte("\n")); n != 1 || len(cw.writes[1]) < 2*flushThreshold {
		t.Errorf("the huge record's write holds %d records of %d bytes, want it alone", n, len(cw.writes[1]))
	}
	if got := bytes.Join(cw.writes, nil); !bytes.Equal(got, want) {
		t.Errorf("written bytes differ from the records in order")
	}
}
