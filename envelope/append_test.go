package envelope

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
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

// appendJSONStringByByte is appendJSONString as it was before it passed
// plain ASCII eight bytes at a time: the reference it must agree with.
func appendJSONStringByByte(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		b := s[i]
		if b < utf8.RuneSelf {
			if b >= 0x20 && b != '"' && b != '\\' && b != 0x7f {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch b {
			case '"', '\\':
				dst = append(dst, '\\', b)
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[b>>4], hexDigits[b&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, "\uFFFD"...)
			i++
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// TestAppendJSONStringLikeByByte compares appendJSONString with the byte
// at a time reference on every byte value at every offset of a run longer
// than a word, on random strings drawn mostly from the bytes and runes it
// treats specially, and on the lines of the corpus stdouts.
func TestAppendJSONStringLikeByByte(t *testing.T) {
	check := func(s string) {
		t.Helper()
		if got, want := appendJSONString(nil, s), appendJSONStringByByte(nil, s); !bytes.Equal(got, want) {
			t.Fatalf("appendJSONString(%q) = %q, want %q", s, got, want)
		}
	}
	for c := range 256 {
		for at := range 20 {
			b := []byte(strings.Repeat("a", 20))
			b[at] = byte(c)
			check(string(b))
		}
	}
	pieces := []string{"a", "plain text ", "\"", "\\", "\n", "\r", "\t", "\x00", "\x1f", "\x7f", "\x80", "\xff", "é", "€", "\u2028", "\u2029", "\xe2\x80", "\U0001F600", " "}
	rng := rand.New(rand.NewPCG(3, 4))
	for range 20000 {
		var sb strings.Builder
		for range rng.IntN(40) {
			sb.WriteString(pieces[rng.IntN(len(pieces))])
		}
		check(sb.String())
	}
	files, _ := filepath.Glob("../testdata/corpus/*/*.stdout.jsonl")
	if len(files) == 0 {
		t.Fatal("no corpus stdouts found")
	}
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range bytes.Split(data, []byte("\n")) {
			check(string(l))
		}
	}
}
