package sanitize_test

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/evcap/evcap/bench/gen"
	"github.com/evcap/evcap/sanitize"
	"github.com/google/go-cmp/cmp"
	"github.com/tidwall/gjson"
)

// TestLineRedactorBatch streams real partial-message runs, and a
// generated Claude run with a planted secret every few turns, through a
// LineRedactor that looks at every delta and through batching ones that
// are told to Release at random points (as record does whenever its input
// runs dry). The lines released must be the same, in the same order, and
// right after each Release a batching redactor must hold exactly the
// lines the other holds after the same line: Release leaves nothing
// waiting for a batch. The caller's buffer is scribbled over after each
// Push, so a held line that did not copy its bytes shows.
func TestLineRedactorBatch(t *testing.T) {
	type input struct {
		name  string
		lines [][]byte
		m     machine
	}
	var inputs []input
	for _, name := range []string{"long-text-partial", "tools-partial"} {
		c := corpusCapture{name: "claude/" + name, provider: "claude", src: corpusDir + "/claude/" + name + ".stdout.jsonl",
			run: "/tmp/realcli/runs/claude/" + name}
		inputs = append(inputs, input{c.name, c.nativeLines(t), c.machine()})
	}
	var g bytes.Buffer
	if _, err := gen.Write(&g, gen.Options{Provider: "claude", Size: 256 << 10, Seed: 5, SecretEvery: 2}); err != nil {
		t.Fatal(err)
	}
	genFile := filepath.Join(t.TempDir(), "gen.stdout.jsonl")
	if err := os.WriteFile(genFile, g.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	gc := corpusCapture{name: "generated", provider: "claude", src: genFile, run: "/home/dev"}
	inputs = append(inputs, input{gc.name, gc.nativeLines(t), machine{home: "/home/dev", project: "/home/dev/src/app"}})

	redactions := 0
	for _, in := range inputs {
		each := sanitize.NewLineRedactor(in.m.redactor(t), sanitize.LineOptions{})
		var heldEach []int
		var want []sanitize.RedactedLine
		keep := func(dst *[]sanitize.RedactedLine, rs []sanitize.RedactedLine) {
			for _, r := range rs {
				*dst = append(*dst, sanitize.RedactedLine{Line: append([]byte(nil), r.Line...), Ledger: r.Ledger, Stderr: r.Stderr})
			}
		}
		for _, l := range in.lines {
			keep(&want, each.Push(l))
			n, _ := each.Held()
			heldEach = append(heldEach, n)
		}
		keep(&want, each.Flush())
		for _, r := range want {
			redactions += len(r.Ledger)
		}
		for _, batch := range []int{100, 4 << 10} {
			r := rand.New(rand.NewPCG(uint64(batch), 3))
			lr := sanitize.NewLineRedactor(in.m.redactor(t), sanitize.LineOptions{Batch: batch})
			var got []sanitize.RedactedLine
			releases, waited := 0, 0
			for i, l := range in.lines {
				buf := append([]byte(nil), l...)
				keep(&got, lr.Push(buf))
				for j := range buf {
					buf[j] = 'X'
				}
				if n, _ := lr.Held(); n > heldEach[i] {
					waited++
				}
				if r.IntN(8) == 0 {
					keep(&got, lr.Release())
					releases++
					if n, _ := lr.Held(); n != heldEach[i] {
						t.Fatalf("%s, batch %d: after line %d and Release, %d lines held; looking at every delta holds %d", in.name, batch, i+1, n, heldEach[i])
					}
				}
			}
			keep(&got, lr.Flush())
			if len(got) != len(want) {
				t.Fatalf("%s, batch %d: %d lines batched, %d looking at every delta", in.name, batch, len(got), len(want))
			}
			for i := range want {
				if !bytes.Equal(got[i].Line, want[i].Line) || !slices.Equal(got[i].Ledger, want[i].Ledger) || got[i].Stderr != want[i].Stderr {
					t.Fatalf("%s, batch %d: line %d differs (-each delta +batched):\n%s", in.name, batch, i+1, cmp.Diff(want[i], got[i]))
				}
			}
			if waited == 0 || releases == 0 {
				t.Fatalf("%s, batch %d: no line ever waited for a batch (%d) or no Release (%d): the test proves nothing", in.name, batch, waited, releases)
			}
		}
	}
	if redactions == 0 {
		t.Fatal("nothing was redacted: the comparison says nothing about secrets")
	}
}

// TestLineRedactorBatchBound: a batch far larger than the run, and no
// Release, still keeps the held lines within a bound: past 64 KiB of
// lines behind a batching stream it releases what it can.
func TestLineRedactorBatchBound(t *testing.T) {
	c := corpusCapture{name: "claude/long-text-partial", provider: "claude", src: corpusDir + "/claude/long-text-partial.stdout.jsonl",
		run: "/tmp/realcli/runs/claude/long-text-partial"}
	lr := sanitize.NewLineRedactor(c.machine().redactor(t), sanitize.LineOptions{Batch: 1 << 30})
	longest, most := 0, 0
	for i, l := range c.nativeLines(t) {
		longest = max(longest, len(l))
		lr.Push(l)
		_, b := lr.Held()
		most = max(most, b)
		if b > 64<<10+2*longest+64<<10/4 {
			t.Fatalf("line %d: %d bytes held with an endless batch", i+1, b)
		}
	}
	lr.Flush()
	if most < 16<<10 {
		t.Fatalf("at most %d bytes were ever held: the batch did not hold anything", most)
	}
	if lr.EarlyFlushes() != 0 {
		t.Errorf("%d early flushes: the batch bound must release, not cut", lr.EarlyFlushes())
	}
	t.Logf("at most %d bytes held (longest line %d)", most, longest)
}

// TestLineRedactorCheckedJSON: a released line says CheckedJSON only when
// it is the line pushed, byte for byte, and valid JSON; on the corpus's
// partial-message runs and a generated run with secrets most lines are,
// and the lines redaction changed are not.
func TestLineRedactorCheckedJSON(t *testing.T) {
	var g bytes.Buffer
	if _, err := gen.Write(&g, gen.Options{Provider: "claude", Size: 128 << 10, Seed: 9, SecretEvery: 2}); err != nil {
		t.Fatal(err)
	}
	genFile := filepath.Join(t.TempDir(), "gen.stdout.jsonl")
	if err := os.WriteFile(genFile, g.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	checked, changed := 0, 0
	for _, c := range []corpusCapture{
		{name: "claude/long-text-partial", provider: "claude", src: corpusDir + "/claude/long-text-partial.stdout.jsonl", run: "/tmp/realcli/runs/claude/long-text-partial"},
		{name: "claude/tools", provider: "claude", src: corpusDir + "/claude/tools.stdout.jsonl", run: "/tmp/realcli/runs/claude/tools"},
		{name: "generated", provider: "claude", src: genFile, run: "/home/dev"},
	} {
		in := c.nativeLines(t)
		in = append(in, []byte(`{"torn":`), []byte("plain text"), []byte(` {"lead":"blank"}`))
		for _, batch := range []int{0, 4 << 10} {
			lr := sanitize.NewLineRedactor(c.machine().redactor(t), sanitize.LineOptions{Batch: batch})
			var out []sanitize.RedactedLine
			for _, l := range in {
				for _, r := range lr.Push(l) {
					out = append(out, sanitize.RedactedLine{Line: append([]byte(nil), r.Line...), CheckedJSON: r.CheckedJSON})
				}
			}
			for _, r := range lr.Flush() {
				out = append(out, sanitize.RedactedLine{Line: append([]byte(nil), r.Line...), CheckedJSON: r.CheckedJSON})
			}
			if len(out) != len(in) {
				t.Fatalf("%s: %d lines in, %d out", c.name, len(in), len(out))
			}
			for i, r := range out {
				same := bytes.Equal(r.Line, in[i])
				if r.CheckedJSON && (!same || !gjson.ValidBytes(r.Line)) {
					t.Fatalf("%s, line %d: CheckedJSON on a line that is changed (%v) or not JSON: %.200s", c.name, i+1, !same, r.Line)
				}
				if r.CheckedJSON {
					checked++
				}
				if !same {
					changed++
				}
			}
		}
	}
	if checked == 0 || changed == 0 {
		t.Fatalf("%d lines checked, %d changed: the test proves nothing", checked, changed)
	}
	t.Logf("%d lines CheckedJSON, %d changed by redaction", checked, changed)
}
