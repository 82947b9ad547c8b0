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
