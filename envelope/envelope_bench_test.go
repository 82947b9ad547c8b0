package envelope_test

import (
	"bytes"
	"io"
	"testing"

	"github.com/evcap/evcap/bench/gen"
	"github.com/evcap/evcap/envelope"
	"github.com/evcap/evcap/internal/lines"
)

func benchLines(b *testing.B) ([][]byte, int64) {
	var raw bytes.Buffer
	if _, err := gen.Write(&raw, gen.Options{Provider: "claude", Size: 8 << 20, Seed: 1}); err != nil {
		b.Fatal(err)
	}
	var ls [][]byte
	lr := lines.NewReader(bytes.NewReader(raw.Bytes()))
	for {
		l, err := lr.Next()
		if err != nil {
			break
		}
		ls = append(ls, bytes.Clone(l))
	}
	return ls, int64(raw.Len())
}

// BenchmarkWriterNative writes every line of a generated Claude run as a
// native_in record (the recorder's hot path).
func BenchmarkWriterNative(b *testing.B) {
	ls, n := benchLines(b)
	b.SetBytes(n)
	b.ReportAllocs()
	for b.Loop() {
		w := envelope.NewWriter(io.Discard, envelope.WriterOptions{CaptureID: "01KQ0000000000000000000000", FlushInterval: -1})
		for _, l := range ls {
			p, _ := envelope.EncodeNativeLine(l)
			if _, err := w.Write(&envelope.Record{Stage: envelope.StageNativeIn, EventType: "stream_event", Provider: "claude", Payload: p}); err != nil {
				b.Fatal(err)
			}
		}
		w.Close()
	}
}

// BenchmarkReaderNext reads the same records back.
func BenchmarkReaderNext(b *testing.B) { benchRead(b, (*envelope.Reader).Next) }

// BenchmarkReaderNextShared reads them without copying each payload.
func BenchmarkReaderNextShared(b *testing.B) { benchRead(b, (*envelope.Reader).NextShared) }

func benchRead(b *testing.B, next func(*envelope.Reader) (*envelope.Record, error)) {
	ls, _ := benchLines(b)
	var capBuf bytes.Buffer
	w := envelope.NewWriter(&capBuf, envelope.WriterOptions{CaptureID: "01KQ0000000000000000000000", FlushInterval: -1})
	for _, l := range ls {
		p, _ := envelope.EncodeNativeLine(l)
		w.Write(&envelope.Record{Stage: envelope.StageNativeIn, EventType: "stream_event", Provider: "claude", Payload: p})
	}
	w.Close()
	b.SetBytes(int64(capBuf.Len()))
	b.ReportAllocs()
	for b.Loop() {
		r := envelope.NewReader(bytes.NewReader(capBuf.Bytes()), "bench", envelope.ReaderOptions{})
		n := 0
		for {
			_, err := next(r)
			if err == io.EOF {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
			n++
		}
		if n != len(ls) {
			b.Fatalf("read %d records, wrote %d", n, len(ls))
		}
	}
}

// BenchmarkWriterRecords writes records whose payloads are ready (as a
// recorder does once a line is validated and redacted): a native_in, a
// normalized_out and a legacy_out record per line of a generated Claude
// run, so that what is measured is the envelope around the payloads.
func BenchmarkWriterRecords(b *testing.B) {
	ls, n := benchLines(b)
	payloads := make([][]byte, len(ls))
	for i, l := range ls {
		payloads[i], _ = envelope.EncodeNativeLine(l)
	}
	norm := []byte(`{"kind":"text","phase":"delta","messageId":"msg_01","partId":"0","text":"a few words"}`)
	legacy := []byte(`"[CONTENT_DELTA] \"a few words\""`)
	cause := []int64{1}
	b.SetBytes(n)
	b.ReportAllocs()
	for b.Loop() {
		w := envelope.NewWriter(io.Discard, envelope.WriterOptions{CaptureID: "01KQ0000000000000000000000", FlushInterval: -1})
		for i, p := range payloads {
			ts := "2026-12-02T19:00:00.000Z"
			w.Write(&envelope.Record{Stage: envelope.StageNativeIn, EventType: "stream_event", Provider: "claude", SessionID: "bb08ae09-36ec-41f0-9835-470216f0edea", Timestamp: ts, Payload: p})
			cause[0] = int64(3*i + 1)
			w.Write(&envelope.Record{Stage: envelope.StageNormalizedOut, EventType: "text", Provider: "claude", SessionID: "bb08ae09-36ec-41f0-9835-470216f0edea", Timestamp: ts, Payload: norm, Cause: cause})
			w.Write(&envelope.Record{Stage: envelope.StageLegacyOut, EventType: "[CONTENT_DELTA]", Provider: "claude", SessionID: "bb08ae09-36ec-41f0-9835-470216f0edea", Timestamp: ts, Payload: legacy, Cause: cause})
		}
		w.Close()
	}
}
