package sanitize_test

import (
	"bytes"
	"io"
	"os"
	"testing"

	"github.com/evcap/evcap/bench/gen"
	"github.com/evcap/evcap/capture"
	"github.com/evcap/evcap/envelope"
	"github.com/evcap/evcap/internal/lines"
	"github.com/evcap/evcap/redact"
	"github.com/evcap/evcap/sanitize"
)

// benchCapture wraps a generated run into native_in records.
func benchCapture(b *testing.B, provider string, size int64) []byte {
	var raw, out bytes.Buffer
	if _, err := gen.Write(&raw, gen.Options{Provider: provider, Size: size, Seed: 1, SecretEvery: 20}); err != nil {
		b.Fatal(err)
	}
	w := envelope.NewWriter(&out, envelope.WriterOptions{CaptureID: "01KQ0000000000000000000000", FlushInterval: -1})
	c := capture.New(w, capture.Options{Provider: provider})
	c.Begin(capture.Start{EvcapVersion: "bench", Provider: provider})
	lr := lines.NewReader(&raw)
	for {
		l, err := lr.Next()
		if err != nil {
			break
		}
		c.Native(l)
	}
	zero := 0
	if err := c.Close(capture.End{ExitCode: &zero, CleanEnd: true}); err != nil {
		b.Fatal(err)
	}
	return out.Bytes()
}

// BenchmarkSanitize sanitizes a generated capture of each provider (8 MB
// of CLI output, secrets planted every 20 turns).
func BenchmarkSanitize(b *testing.B) {
	for _, p := range gen.Providers() {
		b.Run(p, func(b *testing.B) {
			capBytes := benchCapture(b, p, 8<<20)
			b.SetBytes(int64(len(capBytes)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := sanitize.Sanitize(bytes.NewReader(capBytes), "bench", io.Discard,
					sanitize.Options{Home: "/home/dev", Project: "/home/dev/src/app", Temp: []string{"/tmp"}}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkLineRedactor pushes every line of a generated run (8 MB of CLI
// output, secrets planted every 20 turns) through a LineRedactor, as evcap
// record does between the agent's stdout and the capture. ns/line is the
// redaction CPU per line that record's per-line budget has to cover.
func BenchmarkLineRedactor(b *testing.B) {
	for _, p := range gen.Providers() {
		b.Run(p, func(b *testing.B) {
			var raw bytes.Buffer
			if _, err := gen.Write(&raw, gen.Options{Provider: p, Size: 8 << 20, Seed: 1, SecretEvery: 20}); err != nil {
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
			red, err := redact.New(redact.Options{Home: "/home/dev", Project: "/home/dev/src/app", Temp: []string{"/tmp"}})
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(raw.Len()))
			b.ReportAllocs()
			out := 0
			for b.Loop() {
				out = 0
				r := sanitize.NewLineRedactor(red, sanitize.LineOptions{})
				for _, l := range ls {
					out += len(r.Push(l))
				}
				out += len(r.Flush())
			}
			if out != len(ls) {
				b.Fatalf("%d lines out of %d", out, len(ls))
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(ls)), "ns/line")
		})
	}
}

// BenchmarkSanitizeFile sanitizes the capture named by
// EVCAP_BENCH_CAPTURE (for example one made by `evcap record --stdin` of a
// bench/gen run), to profile sanitize on a realistic input; it is skipped
// when the variable is unset.
func BenchmarkSanitizeFile(b *testing.B) {
	path := os.Getenv("EVCAP_BENCH_CAPTURE")
	if path == "" {
		b.Skip("EVCAP_BENCH_CAPTURE not set")
	}
	st, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(st.Size())
	b.ReportAllocs()
	for b.Loop() {
		f, err := os.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		_, err = sanitize.Sanitize(f, path, io.Discard, sanitize.Options{Home: "/home/dev", DefaultProject: "/home/dev/src/app", Temp: []string{"/tmp"}})
		f.Close()
		if err != nil {
			b.Fatal(err)
		}
	}
}
