package replay_test

import (
	"bytes"
	"testing"

	"github.com/evcap/evcap/bench/gen"
	"github.com/evcap/evcap/capture"
	"github.com/evcap/evcap/envelope"
	"github.com/evcap/evcap/internal/lines"
	"github.com/evcap/evcap/normalize/claude"
	"github.com/evcap/evcap/replay"
)

// BenchmarkNativeReplay loads a generated Claude capture (8 MB of CLI
// output as native_in records) and normalizes it again, as replay --mode
// native does before comparing.
func BenchmarkNativeReplay(b *testing.B) {
	var raw, out bytes.Buffer
	if _, err := gen.Write(&raw, gen.Options{Provider: "claude", Size: 8 << 20, Seed: 1}); err != nil {
		b.Fatal(err)
	}
	w := envelope.NewWriter(&out, envelope.WriterOptions{CaptureID: "01KQ0000000000000000000000", FlushInterval: -1})
	c := capture.New(w, capture.Options{Provider: "claude"})
	c.Begin(capture.Start{EvcapVersion: "bench", Provider: "claude"})
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
	b.SetBytes(int64(out.Len()))
	b.ReportAllocs()
	for b.Loop() {
		fx, err := replay.LoadCapture(bytes.NewReader(out.Bytes()), "bench")
		if err != nil {
			b.Fatal(err)
		}
		if evs := replay.Normalize(fx, func() replay.Normalizer { return claude.New() }); len(evs) == 0 {
			b.Fatal("no events")
		}
	}
}

// BenchmarkRunCapture replays a generated Claude capture (8 MB of CLI
// output, with the normalized_out records a recorder writes) in native
// mode against its recorded events, the streaming path of
// evcap replay CAPTURE --mode native.
func BenchmarkRunCapture(b *testing.B) {
	var raw, out bytes.Buffer
	if _, err := gen.Write(&raw, gen.Options{Provider: "claude", Size: 8 << 20, Seed: 1}); err != nil {
		b.Fatal(err)
	}
	w := envelope.NewWriter(&out, envelope.WriterOptions{CaptureID: "01KQ0000000000000000000000", FlushInterval: -1})
	c := capture.New(w, capture.Options{Provider: "claude"})
	c.Begin(capture.Start{EvcapVersion: "bench", Provider: "claude"})
	n := claude.New()
	lr := lines.NewReader(&raw)
	for {
		l, err := lr.Next()
		if err != nil {
			break
		}
		seq := c.Native(l)
		for _, e := range n.Line(seq, l) {
			c.Normalized(e)
		}
	}
	for _, e := range n.End() {
		c.Normalized(e)
	}
	zero := 0
	if err := c.Close(capture.End{ExitCode: &zero, CleanEnd: true}); err != nil {
		b.Fatal(err)
	}
	opts := replay.Options{Mode: replay.ModeNative, Normalizer: func() replay.Normalizer { return claude.New() }}
	b.SetBytes(int64(out.Len()))
	b.ReportAllocs()
	for b.Loop() {
		if err := replay.RunCapture(bytes.NewReader(out.Bytes()), "bench", opts); err != nil {
			b.Fatal(err)
		}
	}
}
