package source

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/evcap/evcap/envelope"
	"github.com/evcap/evcap/internal/jsonpick"
	"github.com/evcap/evcap/internal/lines"
)

type refLine struct {
	ref  int64
	line string
}

// readNative reads every line of n.
func readNative(t *testing.T, n *Native) []refLine {
	t.Helper()
	var out []refLine
	for {
		ref, line, err := n.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, refLine{ref, string(line)})
	}
}

// TestNativeRawLikeLines checks that raw output is split exactly as
// internal/lines.Reader splits it, numbered the same, whatever the chunks
// the reader hands out and whatever the line lengths (lines longer than
// the 64 KiB buffer included), with a torn last line reported once.
func TestNativeRawLikeLines(t *testing.T) {
	long := strings.Repeat("x", 200<<10)
	inputs := []string{
		"",
		"\n",
		"{\"type\":\"system\",\"subtype\":\"init\"}\n",
		"a\nb\n\nc",
		"only torn",
		"crlf\r\nlines\r\n",
		long + "\nshort\n" + long + long + "\n" + long,
		"short\n" + long + "\n",
	}
	for i, in := range inputs {
		var want []refLine
		lr := lines.NewReader(strings.NewReader(in))
		torn := 0
		for {
			b, err := lr.Next()
			if errors.Is(err, lines.ErrTorn) {
				torn++
			} else if err != nil {
				break
			}
			want = append(want, refLine{lr.Line(), string(b)})
		}
		for _, r := range []io.Reader{strings.NewReader(in), iotest.OneByteReader(strings.NewReader(in)), iotest.HalfReader(strings.NewReader(in))} {
			var warn bytes.Buffer
			n, err := NewNative(r, "in.jsonl", &warn)
			if err != nil {
				t.Fatal(err)
			}
			if n.IsCapture {
				t.Fatalf("input %d read as a capture", i)
			}
			got := readNative(t, n)
			if len(got) != len(want) {
				t.Fatalf("input %d: %d lines, want %d", i, len(got), len(want))
			}
			for j := range got {
				if got[j] != want[j] {
					t.Fatalf("input %d line %d: got ref %d len %d, want ref %d len %d", i, j, got[j].ref, len(got[j].line), want[j].ref, len(want[j].line))
				}
			}
			if c := strings.Count(warn.String(), "no newline"); c != torn {
				t.Fatalf("input %d: %d torn-line warnings, want %d: %q", i, c, torn, warn.String())
			}
			if torn > 0 && !strings.HasPrefix(warn.String(), "evcap: in.jsonl:") {
				t.Fatalf("warning does not name the input and line: %q", warn.String())
			}
		}
	}
}

// TestNativeRawLongLines reads lines long enough that their slice grows
// from 1 MiB to 16 and then 64 (and a torn last one), each with its bytes
// in order: a piece lost or repeated at a growth would show.
func TestNativeRawLongLines(t *testing.T) {
	var b strings.Builder
	b.WriteString("first\n")
	want := []string{"first"}
	// A block of 4099 bytes (not a divisor of any read's size) repeated:
	// a piece lost or read twice changes the length or the content.
	var block []byte
	for j := 0; len(block) < 4099; j++ {
		block = strconv.AppendInt(append(block, ','), int64(j), 10)
	}
	block = block[:4099]
	for i, n := range []int{1 << 20, 5<<20 + 3, 17<<20 + 5, 4<<20 + 1} {
		l := strings.Repeat(string(block), n/len(block)+1)[:n]
		want = append(want, l)
		b.WriteString(l)
		if i < 3 {
			b.WriteString("\n")
		}
	}
	for _, r := range []io.Reader{strings.NewReader(b.String()), iotest.HalfReader(strings.NewReader(b.String()))} {
		n, err := NewNative(r, "in.jsonl", io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		got := readNative(t, n)
		if len(got) != len(want) {
			t.Fatalf("%d lines, want %d", len(got), len(want))
		}
		for i := range got {
			if got[i].line != want[i] || got[i].ref != int64(i+1) {
				t.Fatalf("line %d (ref %d, %d bytes) differs from the %d bytes written", i+1, got[i].ref, len(got[i].line), len(want[i]))
			}
		}
	}
}

// TestNativeRawLongLinesValidated: a line longer than the read buffer is
// checked while it is read, and Validated says what jsonpick.Valid says of
// it (valid, cut at a bad escape, unterminated, torn at the end of the
// input); a line that fits the buffer is not checked (Validated false),
// nor the first line, read whole to tell a capture from raw output.
func TestNativeRawLongLinesValidated(t *testing.T) {
	text := strings.Repeat(`tab\there \"quoted\" \u00e9 \\ `, 12<<10) // about 300 KiB
	lines := []string{
		`{"type":"user","content":["` + text + `"]}`,
		`{"type":"user","content":["` + text + `",{"a":[1,-2.5e3,true,null]}],"z":{}}`,
		`{"type":"user","content":"` + text + `\x"}`,
		`{"type":"user","content":"` + text,
		`{"short":true}`,
		`[` + strings.Repeat(`{"k":[0,1]} , `, 30<<10) + `{}]`,
		`[` + strings.Repeat(`{"k":[0,1]} , `, 30<<10) + `]`,
		`{"type":"user","content":["` + text + `"]}`, // torn: no newline after it
	}
	in := strings.Join(lines, "\n")
	for _, r := range []io.Reader{strings.NewReader(in), iotest.OneByteReader(strings.NewReader(in)), iotest.HalfReader(strings.NewReader(in))} {
		n, err := NewNative(r, "in.jsonl", io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		for i, l := range lines {
			_, got, err := n.Next()
			if err != nil {
				t.Fatalf("line %d: %v", i+1, err)
			}
			if string(got) != l {
				t.Fatalf("line %d: %d bytes, want %d", i+1, len(got), len(l))
			}
			want := i > 0 && len(l) > 64<<10 && jsonpick.Valid(got)
			if n.Validated() != want {
				t.Fatalf("line %d (%d bytes): Validated() = %v, want %v", i+1, len(l), n.Validated(), want)
			}
		}
		if _, _, err := n.Next(); err != io.EOF {
			t.Fatalf("after the last line: %v, want io.EOF", err)
		}
	}
}

// TestNativeRawDetects checks the read-ahead: the provider is told from
// the first line that fits a format, leading noise is held and handed out
// again, and nothing is lost.
func TestNativeRawDetects(t *testing.T) {
	f, err := os.ReadFile("../testdata/corpus/claude/error-retry.stdout.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	in := "noise\n\n" + string(f)
	n, err := NewNative(strings.NewReader(in), "x", io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	ev := n.Evidence()
	if !ev.DetectedOK || ev.Detected.Provider != "claude" || ev.NativeLines != 3 {
		t.Fatalf("evidence %+v, want claude told on the third line", ev)
	}
	if p, err := n.Choose("auto", []string{"claude", "codex"}); err != nil || p != "claude" {
		t.Fatalf("Choose = %q, %v", p, err)
	}
	got := readNative(t, n)
	if want := strings.Count(in, "\n"); len(got) != want {
		t.Fatalf("%d lines, want %d", len(got), want)
	}
	if got[0].line != "noise" || got[1].line != "" || got[2].ref != 3 {
		t.Fatalf("read-ahead lines handed out wrong: %+v", got[:3])
	}

	n, err = NewNative(strings.NewReader("a\nb\n"), "plain.txt", io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := n.Choose("auto", []string{"claude"}); err == nil || !strings.Contains(err.Error(), "plain.txt") {
		t.Fatalf("Choose on lines no provider writes: %v", err)
	}
}

// TestNativeCapture reads a real capture: its native_in lines come out
// with their sequence numbers as refs, the meta records do not, the
// capture's provider and CLI version are known, and an invalid record is
// reported, counted and skipped.
func TestNativeCapture(t *testing.T) {
	f, err := os.Open("../export/testdata/claude-subagent.capture.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var caps []string
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() && len(caps) < 12 {
		caps = append(caps, sc.Text())
	}
	in := strings.Join(caps[:6], "\n") + "\n{\"schemaVersion\":1}\n" + strings.Join(caps[6:], "\n") + "\n"
	var warn bytes.Buffer
	n, err := NewNative(strings.NewReader(in), "cap.jsonl", &warn)
	if err != nil {
		t.Fatal(err)
	}
	if !n.IsCapture || n.Recorded != "claude" || n.CLIVersion != "2.1.197" {
		t.Fatalf("capture %v, recorded %q, CLI version %q", n.IsCapture, n.Recorded, n.CLIVersion)
	}
	if ev := n.Evidence(); !ev.DetectedOK || ev.Detected.Provider != "claude" {
		t.Fatalf("evidence %+v", ev)
	}
	got := readNative(t, n)
	if len(got) == 0 {
		t.Fatal("no native lines")
	}
	for _, l := range got {
		if l.ref < 2 || !strings.HasPrefix(l.line, "{") {
			t.Fatalf("line %+v: want native JSON lines with their sequence numbers", l)
		}
	}
	if n.BadRecords != 1 || !strings.HasPrefix(warn.String(), "evcap: ") {
		t.Fatalf("bad records %d, warnings %q", n.BadRecords, warn.String())
	}
	// RecordEvidence on the same records says the same.
	var recs []*envelope.Record
	er := envelope.NewReader(strings.NewReader(strings.Join(caps, "\n")+"\n"), "cap.jsonl", envelope.ReaderOptions{})
	for {
		rec, err := er.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		recs = append(recs, rec)
	}
	if ev := RecordEvidence("cap.jsonl", recs); ev.Recorded != "claude" || !ev.DetectedOK || ev.Detected.Provider != "claude" || ev.NativeLines != 1 {
		t.Fatalf("RecordEvidence %+v", ev)
	}
	if ev := RecordEvidence("cap.jsonl", recs[:1]); ev.DetectedOK || ev.NativeLines != 0 {
		t.Fatalf("RecordEvidence of the start record alone %+v", ev)
	}
}

func TestCompactPayload(t *testing.T) {
	if got := CompactPayload([]byte(`{ "a" : [1, 2] }`)); got != `{"a":[1,2]}` {
		t.Fatalf("CompactPayload = %q", got)
	}
	long := CompactPayload([]byte(`"` + strings.Repeat("é", 500) + `"`))
	if n := len([]rune(long)); n != 400 || !strings.HasSuffix(long, "…") {
		t.Fatalf("cut to %d runes: %q", n, long)
	}
}
