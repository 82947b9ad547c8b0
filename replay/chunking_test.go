package replay_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os/exec"
	"strings"
	"testing"

	"github.com/evcap/evcap/replay"
)

func testLines(texts ...string) []replay.NativeLine {
	var out []replay.NativeLine
	for i, t := range texts {
		out = append(out, replay.NativeLine{Index: i, Sequence: int64(10 + i), EventType: "x", Line: []byte(t)})
	}
	return out
}

// TestChunksReassemble: every chunking yields the stream's bytes in order,
// First and Last name the lines a piece holds bytes of, and LineEnd is
// set exactly when a piece ends after a newline.
func TestChunksReassemble(t *testing.T) {
	lines := testLines(`{"a":1}`, "not json", "", strings.Repeat("é", 3000), `{"z":2}`)
	stream := replay.StreamBytes(lines)
	starts := []int{}
	off := 0
	for _, l := range lines {
		starts = append(starts, off)
		off += len(l.Line) + 1
	}
	lineOf := func(o int) int {
		i := 0
		for i+1 < len(starts) && starts[i+1] <= o {
			i++
		}
		return i
	}
	for _, c := range []string{"whole", "line", "byte", "random:1", "random:2", "random:99"} {
		ch, err := replay.ParseChunking(c)
		if err != nil || ch.String() != c {
			t.Fatalf("ParseChunking(%q) = %v, %v", c, ch, err)
		}
		var got []byte
		pieces := 0
		for p := range ch.Chunks(lines) {
			start := len(got)
			got = append(got, p.Data...)
			pieces++
			if p.First != lineOf(start) || p.Last != lineOf(len(got)-1) {
				t.Fatalf("%s piece %d: lines %d..%d, want %d..%d", c, pieces, p.First, p.Last, lineOf(start), lineOf(len(got)-1))
			}
			if p.LineEnd != (got[len(got)-1] == '\n') {
				t.Fatalf("%s piece %d: LineEnd %v after %q", c, pieces, p.LineEnd, p.Data)
			}
		}
		if !bytes.Equal(got, stream) {
			t.Fatalf("%s: pieces do not make up the stream", c)
		}
		want := map[string]int{"whole": 1, "line": len(lines), "byte": len(stream)}[c]
		if want > 0 && pieces != want {
			t.Errorf("%s: %d pieces, want %d", c, pieces, want)
		}
		if strings.HasPrefix(c, "random") && (pieces < 10 || pieces >= len(stream)) {
			t.Errorf("%s: %d pieces for %d bytes", c, pieces, len(stream))
		}
	}
	for _, bad := range []string{"", "lines", "random:", "random:x", "random:-1"} {
		if _, err := replay.ParseChunking(bad); !errors.Is(err, replay.ErrBadInput) {
			t.Errorf("ParseChunking(%q): %v, want ErrBadInput", bad, err)
		}
	}
}

func TestParseTiming(t *testing.T) {
	for in, want := range map[string]string{"": "max", "max": "max", "original": "original", "x2": "x2", "x0.5": "x0.5"} {
		got, err := replay.ParseTiming(in)
		if err != nil || got.String() != want {
			t.Errorf("ParseTiming(%q) = %v, %v; want %s", in, got, err, want)
		}
	}
	for _, bad := range []string{"x0", "x-1", "fast", "2"} {
		if _, err := replay.ParseTiming(bad); !errors.Is(err, replay.ErrBadInput) {
			t.Errorf("ParseTiming(%q): %v, want ErrBadInput", bad, err)
		}
	}
}

// dropSecond copies lines but loses the second one: the report must name
// it, as a line fed since the last matching output line.
func dropSecond(r io.Reader, w io.Writer) error {
	b, err := io.ReadAll(r)
	for i, l := range bytes.SplitAfter(b, []byte("\n")) {
		if i != 1 {
			w.Write(l)
		}
	}
	return err
}

// lineCopy writes each line as soon as it is complete.
func lineCopy(drop int) replay.Pipeline {
	return func(r io.Reader, w io.Writer) error {
		var cur []byte
		n := 0
		buf := make([]byte, 7)
		for {
			k, err := r.Read(buf)
			for _, c := range buf[:k] {
				cur = append(cur, c)
				if c == '\n' {
					if n != drop {
						w.Write(cur)
					}
					n++
					cur = nil
				}
			}
			if errors.Is(err, io.EOF) {
				return nil
			}
			if err != nil {
				return err
			}
		}
	}
}

// TestDriveNamesFedLines: a streaming pipeline that loses line 2 is
// reported at output line 2 with native lines 2 and 3 (fed since output
// line 1 was written, up to the diverging line); an equal output gives
// no mismatch; the context stops the reads.
func TestDriveNamesFedLines(t *testing.T) {
	lines := testLines("one", "two", "three", "four")
	want := replay.StreamBytes(lines)
	for _, c := range []string{"line", "byte", "random:3"} {
		ch, _ := replay.ParseChunking(c)
		if m := replay.CompareDriven("copy", want, replay.Drive(context.Background(), lines, ch, lineCopy(-1)), lines, ""); m != nil {
			t.Fatalf("%s: a faithful copy differs:\n%s", c, m)
		}
		m := replay.CompareDriven("drop", want, replay.Drive(context.Background(), lines, ch, lineCopy(1)), lines, "HINT")
		if m == nil {
			t.Fatalf("%s: the dropped line went unnoticed", c)
		}
		var idx []int
		for _, l := range m.Fed {
			idx = append(idx, l.Index)
		}
		if m.Line != 2 || m.Chunking != c || m.Want != "two" || m.Got != "three" || len(idx) == 0 || idx[0] > 1 || idx[len(idx)-1] < 2 {
			t.Errorf("%s: line %d want %q got %q fed %v:\n%s", c, m.Line, m.Want, m.Got, idx, m)
		}
		if !strings.Contains(m.Error(), "being fed: native line 2 (sequence 11): two") || !strings.Contains(m.Error(), "HINT") {
			t.Errorf("%s: report:\n%s", c, m)
		}
	}
	// Whole chunking with a pipeline that reads everything first: all the
	// lines were being fed.
	m := replay.CompareDriven("drop", want, replay.Drive(context.Background(), lines, replay.Chunking{Kind: replay.ChunkWhole}, dropSecond), lines, "")
	if m == nil || m.Line != 2 {
		t.Fatalf("whole: %v", m)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	d := replay.Drive(ctx, lines, replay.Chunking{Kind: replay.ChunkLine}, lineCopy(-1))
	if !errors.Is(d.Err, context.Canceled) {
		t.Errorf("cancelled drive: err %v", d.Err)
	}
}

// TestEngineImportsNoTestCode: the engine's import graph holds neither
// testing, flag nor goldie, so importing it changes no one's flags.
func TestEngineImportsNoTestCode(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range strings.Fields(string(out)) {
		if p == "testing" || p == "flag" || strings.Contains(p, "goldie") {
			t.Errorf("package replay depends on %s", p)
		}
	}
}
