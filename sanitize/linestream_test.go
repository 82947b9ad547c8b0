package sanitize_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/evcap/evcap/event"
	"github.com/evcap/evcap/internal/corpustest"
	"github.com/evcap/evcap/redact"
	"github.com/evcap/evcap/sanitize"
	"github.com/google/go-cmp/cmp"
	"github.com/tidwall/gjson"
)

// nativeLines returns the lines evcap record would read from a corpus
// output: the stdout lines, or the data of each SSE event.
func (c corpusCapture) nativeLines(t testing.TB) [][]byte {
	t.Helper()
	var out [][]byte
	each(t, c.src, func(line []byte) {
		if strings.HasSuffix(c.src, ".sse.txt") {
			rest, ok := bytes.CutPrefix(line, []byte("data:"))
			if !ok {
				return
			}
			line = bytes.TrimLeft(rest, " ")
		}
		out = append(out, line)
	})
	return out
}

func (m machine) redactor(t testing.TB) *redact.Redactor {
	t.Helper()
	r, err := redact.New(redact.Options{Home: m.home, Project: m.project, Temp: m.temp})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// streamLines pushes lines through a LineRedactor, checking the order and
// count promises on the way, and returns what it released.
func streamLines(t *testing.T, lr *sanitize.LineRedactor, in [][]byte) []sanitize.RedactedLine {
	t.Helper()
	var out []sanitize.RedactedLine
	keep := func(rs []sanitize.RedactedLine) {
		for _, r := range rs {
			out = append(out, sanitize.RedactedLine{Line: append([]byte(nil), r.Line...), Ledger: r.Ledger})
		}
	}
	for i, line := range in {
		// The caller's buffer may be reused at once.
		buf := append([]byte(nil), line...)
		keep(lr.Push(buf))
		for j := range buf {
			buf[j] = 'X'
		}
		if n, _ := lr.Held(); len(out)+n != i+1 {
			t.Fatalf("after line %d: %d released + %d held", i+1, len(out), n)
		}
	}
	keep(lr.Flush())
	if n, b := lr.Held(); n != 0 || b != 0 {
		t.Fatalf("Flush left %d lines (%d bytes) held", n, b)
	}
	if len(out) != len(in) {
		t.Fatalf("%d lines in, %d out", len(in), len(out))
	}
	return out
}

func normalizeLines(provider string, in [][]byte) []event.Event {
	n := newNormalizer(provider)
	var evs []event.Event
	for i, line := range in {
		evs = append(evs, n.Line(int64(i+1), line)...)
	}
	return append(evs, n.End()...)
}

// joinedText joins the streamed deltas of native lines (all blocks).
func joinedText(lines [][]byte) string {
	var sb strings.Builder
	for _, l := range lines {
		v := gjson.ParseBytes(l)
		for _, p := range []string{"event.delta.text", "event.delta.thinking", "event.delta.partial_json", "properties.delta"} {
			sb.WriteString(v.Get(p).String())
		}
		if v.Get("type").String() == "message" && v.Get("delta").Bool() {
			sb.WriteString(v.Get("content").String())
		}
	}
	return sb.String()
}

// TestLineRedactorCorpus streams every real CLI output of the corpus
// through a LineRedactor, as evcap record does.
func TestLineRedactorCorpus(t *testing.T) {
	corpustest.Heavy(t) // .ci/after-heavy.sh runs it without -race
	split := 0
	for _, c := range corpusCaptures(t) {
		t.Run(c.name, func(t *testing.T) {
			m := c.machine()
			in := c.nativeLines(t)
			raw := string(bytes.Join(in, []byte("\n")))
			rawJoined := joinedText(in)
			secrets, pieces := secretPieces(raw + "\n" + rawJoined)
			out := streamLines(t, sanitize.NewLineRedactor(m.redactor(t), sanitize.LineOptions{}), in)

			var lines [][]byte
			for i, r := range out {
				lines = append(lines, r.Line)
				for _, leak := range append(append([]string{m.home, m.project, "/tmp/realcli/"}, secrets...), pieces...) {
					if bytes.Contains(r.Line, []byte(leak)) {
						t.Fatalf("line %d keeps %q: %.300s", i+1, leak, r.Line)
					}
				}
				if bytes.HasPrefix(in[i], []byte("{")) && !gjson.ValidBytes(r.Line) {
					t.Fatalf("line %d is no longer JSON: %.300s", i+1, r.Line)
				}
				if !bytes.Equal(r.Line, in[i]) && len(r.Ledger) == 0 {
					t.Errorf("line %d changed without a ledger entry", i+1)
				}
			}
			// A secret split across deltas is gone from the joined text too.
			joined := joinedText(lines)
			for _, s := range secrets {
				if strings.Contains(joined, s) {
					t.Errorf("joined deltas spell %.16s…", s)
				}
			}
			for _, s := range secrets {
				if strings.Contains(rawJoined, s) && !bytes.Contains([]byte(raw), []byte(s)) {
					split++ // only the joined deltas spell it
				}
			}
			// The normalizer sees as many events in the redacted lines as
			// in the raw ones: no delta was emptied.
			if got, want := len(normalizeLines(c.provider, lines)), len(normalizeLines(c.provider, in)); got != want {
				t.Errorf("%d events from the redacted lines, %d from the raw ones", got, want)
			}

			// The lookahead changes when lines come out, never what.
			for _, la := range []int{64, 1 << 30} {
				again := streamLines(t, sanitize.NewLineRedactor(m.redactor(t), sanitize.LineOptions{Lookahead: la}), in)
				if diff := cmp.Diff(out, again); diff != "" {
					t.Errorf("lookahead %d gives other lines (-default +%d):\n%s", la, la, diff)
				}
			}
		})
	}
	if split == 0 {
		t.Errorf("no capture of the corpus splits a planted secret across lines; the test proves nothing about deltas")
	}
	t.Logf("%d planted secrets split across delta lines", split)
}

// TestLineRedactorDelay checks the delay bound on Claude's partial
// messages: a block end releases everything, and no line waits behind more
// than the lookahead of text.
func TestLineRedactorDelay(t *testing.T) {
	for _, name := range []string{"long-text-partial", "tools-partial"} {
		t.Run(name, func(t *testing.T) {
			c := corpusCapture{name: "claude/" + name, provider: "claude", src: corpusDir + "/claude/" + name + ".stdout.jsonl",
				run: "/tmp/realcli/runs/claude/" + name}
			m := c.machine()
			const la = 256
			lr := sanitize.NewLineRedactor(m.redactor(t), sanitize.LineOptions{Lookahead: la})
			var pending []int // lengths of the deltas of the held lines
			released, ends, worst := 0, 0, 0
			for i, line := range c.nativeLines(t) {
				d := gjson.GetBytes(line, "event.delta")
				text := d.Get("text").String() + d.Get("thinking").String() + d.Get("partial_json").String()
				got := lr.Push(line)
				released += len(got)
				pending = append(pending, len(text))
				pending = pending[len(got):]
				held, _ := lr.Held()
				if held != len(pending) {
					t.Fatalf("line %d: %d held, expected %d", i+1, held, len(pending))
				}
				switch gjson.GetBytes(line, "event.type").String() {
				case "content_block_stop", "message_stop":
					ends++
					if held != 0 {
						t.Errorf("line %d ends the block but %d lines are still held", i+1, held)
					}
				}
				// Text after the oldest held line: below the lookahead, plus
				// the last delta (which can overshoot it) and what a secret
				// still open at the edge adds (the fake keys are about 100
				// bytes).
				after := 0
				for _, n := range pending[min(1, len(pending)):] {
					after += n
				}
				if len(pending) > 1 {
					worst = max(worst, after-pending[len(pending)-1])
				}
				if len(pending) > 1 && after-pending[len(pending)-1] >= la+128 {
					t.Errorf("line %d: the oldest held line waits behind %d bytes of text", i+1, after)
				}
			}
			released += len(lr.Flush())
			if ends == 0 || released == 0 {
				t.Fatalf("no block ends (%d) or no lines (%d) in the capture", ends, released)
			}
			t.Logf("lookahead %d: the oldest held line waited behind at most %d bytes of text", la, worst)
		})
	}
}

// TestLineRedactorMaxHeld: past MaxHeld the oldest block is ended early,
// so held bytes stay bounded.
func TestLineRedactorMaxHeld(t *testing.T) {
	c := corpusCapture{name: "claude/long-text-partial", provider: "claude", src: corpusDir + "/claude/long-text-partial.stdout.jsonl",
		run: "/tmp/realcli/runs/claude/long-text-partial"}
	m := c.machine()
	const maxHeld = 2048
	lr := sanitize.NewLineRedactor(m.redactor(t), sanitize.LineOptions{Lookahead: 1 << 20, MaxHeld: maxHeld})
	longest := 0
	for i, line := range c.nativeLines(t) {
		longest = max(longest, len(line))
		lr.Push(line)
		if _, b := lr.Held(); b > maxHeld+longest {
			t.Fatalf("line %d: %d bytes held, MaxHeld %d", i+1, b, maxHeld)
		}
	}
	lr.Flush()
	if lr.EarlyFlushes() == 0 {
		t.Errorf("a 1 MiB lookahead with MaxHeld %d never ended a block early", maxHeld)
	}
}

// TestLineRedactorText: lines that are not JSON are redacted as text and
// keep their place.
func TestLineRedactorText(t *testing.T) {
	r, err := redact.New(redact.Options{Project: "/work/demo"})
	if err != nil {
		t.Fatal(err)
	}
	lr := sanitize.NewLineRedactor(r, sanitize.LineOptions{})
	got := lr.Push([]byte("warning: reading /work/demo/go.mod"))
	if len(got) != 1 || string(got[0].Line) != "warning: reading <PROJECT>/go.mod" {
		t.Fatalf("text line: %+v", got)
	}
	if len(got[0].Ledger) != 1 || got[0].Ledger[0].Pointer != "" || got[0].Ledger[0].Rule != redact.RulePathProject {
		t.Errorf("ledger %+v", got[0].Ledger)
	}
}
