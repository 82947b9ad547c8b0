package redact

import (
	"bufio"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/evcap/evcap/internal/lines"
	"github.com/tidwall/gjson"
)

// block is the deltas of one streamed content block, in order.
type block struct {
	name   string
	deltas []string
}

// corpusBlocks extracts the streamed blocks of a real capture: Claude
// content_block_delta (text, thinking, partial_json) per message and index,
// Gemini assistant message deltas, opencode message.part.delta per part.
func corpusBlocks(t *testing.T, path string) []block {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var order []string
	byKey := map[string][]string{}
	add := func(key, d string) {
		if _, ok := byKey[key]; !ok {
			order = append(order, key)
		}
		byKey[key] = append(byKey[key], d)
	}
	msg := 0
	lr := lines.NewReader(bufio.NewReader(f))
	for {
		line, err := lr.Next()
		if err != nil {
			break
		}
		if !gjson.ValidBytes(line) {
			continue
		}
		v := gjson.ParseBytes(line)
		switch {
		case v.Get("event.type").String() == "message_start":
			msg++
		case v.Get("event.type").String() == "content_block_delta":
			d := v.Get("event.delta")
			for _, field := range []string{"text", "thinking", "partial_json"} {
				if x := d.Get(field); x.Exists() {
					add(path+"#claude-"+string(rune('0'+msg))+"-"+v.Get("event.index").String()+"-"+field, x.String())
				}
			}
		case v.Get("type").String() == "message" && v.Get("delta").Bool():
			add(path+"#gemini-"+v.Get("role").String(), v.Get("content").String())
		case v.Get("type").String() == "message.part.delta":
			add(path+"#opencode-"+v.Get("properties.partID").String()+"-"+v.Get("properties.field").String(), v.Get("properties.delta").String())
		}
	}
	var out []block
	for _, k := range order {
		out = append(out, block{name: k, deltas: byKey[k]})
	}
	return out
}

// The oracle for the corpus: the fake key and key id the scenario planted.
var plantedRe = regexp.MustCompile(`sk-ant-[A-Za-z0-9-]+|AKIA[A-Z0-9]{16}`)

func TestChunksOnRealSplitSecrets(t *testing.T) {
	r := testRedactor(t)
	files := []string{
		"../testdata/corpus/claude/long-text-partial.stdout.jsonl",
		"../testdata/corpus/gemini/long-text.stdout.jsonl",
		"../testdata/corpus/opencode/serve-tools.stdout.jsonl",
		"../testdata/corpus/opencode/serve-error-retry.stdout.jsonl",
		"../testdata/corpus/claude/tools-partial.stdout.jsonl",
	}
	planted, split := 0, 0
	for _, file := range files {
		blocks := corpusBlocks(t, file)
		if len(blocks) == 0 {
			t.Fatalf("%s: no streamed blocks found", file)
		}
		for _, b := range blocks {
			joined := strings.Join(b.deltas, "")
			got := r.Chunks(b.deltas)
			if len(got) != len(b.deltas) {
				t.Fatalf("%s: %d chunks in, %d out", b.name, len(b.deltas), len(got))
			}
			var outJoined strings.Builder
			for _, c := range got {
				outJoined.WriteString(c.Text)
			}
			whole, _ := r.Text([]byte(joined))
			if outJoined.String() != string(whole) {
				t.Errorf("%s: reassembled chunks differ from redacting the reassembled text", b.name)
			}
			secrets := plantedRe.FindAllStringIndex(joined, -1)
			if len(secrets) == 0 && outJoined.String() != joined {
				t.Errorf("%s: a block without planted secrets changed:\n%s", b.name, outJoined.String())
			}
			for _, s := range secrets {
				planted++
				if checkPieces(t, b, got, s[0], s[1]) > 1 {
					split++
				}
			}
			checkStream(t, r, b, got)
		}
	}
	t.Logf("planted secrets in real streams: %d, of which split across deltas: %d", planted, split)
	if planted < 4 || split < 4 {
		t.Errorf("expected the corpus to plant split secrets (claude and gemini long-text): planted %d, split %d", planted, split)
	}
}

// checkPieces checks that every delta that held a piece of the secret at
// [s,e) of the joined text shows none of it and records it in its ledger.
// It returns how many deltas the secret touched.
func checkPieces(t *testing.T, b block, got []Chunk, s, e int) int {
	t.Helper()
	secret := strings.Join(b.deltas, "")[s:e]
	touched := 0
	a := 0
	for k, d := range b.deltas {
		lo, hi := max(s, a), min(e, a+len(d))
		a += len(d)
		if lo >= hi {
			continue
		}
		touched++
		piece := secret[lo-s : hi-s]
		if len(piece) >= 3 && strings.Contains(got[k].Text, piece) {
			t.Errorf("%s: delta %d still shows %q", b.name, k, piece)
		}
		rec := 0
		for _, f := range got[k].Findings {
			rec += f.OriginalLength
		}
		if rec < hi-lo {
			t.Errorf("%s: delta %d ledger records %d bytes, the secret had %d there", b.name, k, rec, hi-lo)
		}
	}
	for i := 0; i+6 <= len(secret); i++ {
		for _, c := range got {
			if strings.Contains(c.Text, secret[i:i+6]) {
				t.Errorf("%s: a chunk shows %q of a secret", b.name, secret[i:i+6])
			}
		}
	}
	return touched
}

// checkStream feeds the deltas one by one and wants the same chunks as
// Chunks, within the documented memory bound.
func checkStream(t *testing.T, r *Redactor, b block, want []Chunk) {
	t.Helper()
	// Each lookahead looked at every delta, then batched (Batch): a
	// batch shorter than most deltas, one that holds a few, one that
	// holds the whole block, and a few with Release after every third
	// delta. The chunks must be the same every way.
	type way struct{ look, batch, release int }
	for _, w := range []way{{64, 0, 0}, {0, 0, 0}, {64, 16, 0}, {0, 200, 0}, {0, 4096, 0}, {64, 200, 3}} {
		s := r.NewStream(w.look)
		s.Batch(w.batch)
		var got []Chunk
		eff := w.look
		if eff <= 0 {
			eff = DefaultLookahead
		}
		longest := 0
		for i, d := range b.deltas {
			longest = max(longest, len(d))
			_, before := s.Held()
			out := s.Push(d)
			if before+len(d) < w.batch && len(out) > 0 {
				t.Errorf("%s: Push released %d chunks with %d bytes held, under the batch of %d", b.name, len(out), before+len(d), w.batch)
			}
			got = append(got, out...)
			if w.release > 0 && i%w.release == w.release-1 {
				got = append(got, s.Release()...)
			}
			// Documented bound: lookahead + one delta + an open secret
			// (the longest here is a PEM block of about 300 bytes), plus
			// the batch.
			if _, held := s.Held(); held > eff+longest+320+w.batch {
				t.Errorf("%s: stream holds %d bytes with lookahead %d and batch %d", b.name, held, eff, w.batch)
			}
		}
		got = append(got, s.Flush()...)
		if !slices.EqualFunc(got, want, func(x, y Chunk) bool { return x.Text == y.Text && equalFindings(x.Findings, y.Findings) }) {
			if len(got) != len(want) {
				t.Errorf("%s: Stream(lookahead %d, batch %d) gave %d chunks for %d deltas", b.name, w.look, w.batch, len(got), len(want))
			}
			for k := range min(len(got), len(want)) {
				if got[k].Text != want[k].Text || !equalFindings(got[k].Findings, want[k].Findings) {
					t.Errorf("%s: Stream(lookahead %d, batch %d) differs from Chunks at delta %d\n in: %q\ngot: %q %v\nwant: %q %v", b.name, w.look, w.batch, k,
						b.deltas[max(0, k-2):min(len(b.deltas), k+2)], chunkTexts(got[max(0, k-2):min(len(got), k+2)]), got[k].Findings,
						chunkTexts(want[max(0, k-2):min(len(want), k+2)]), want[k].Findings)
					break
				}
			}
		}
	}
}

// TestChunksSplitFakeSecrets splits each generated secret across 2 to 4
// deltas and wants, in each delta, exactly the secret's piece gone (the
// token in the delta where the secret starts).
func TestChunksSplitFakeSecrets(t *testing.T) {
	r := testRedactor(t)
	g := newGen()
	cases := 0
	for _, p := range positives() {
		pre, post := "Sure, the config says:\n", "\nand that is all."
		joined := pre + p.text() + post
		// Secret ranges in the joined text.
		type rng struct {
			s, e int
			rule string
		}
		var secrets []rng
		at := len(pre)
		for _, x := range p.parts {
			if x.rule != "" {
				secrets = append(secrets, rng{at, at + len(x.text), x.rule})
			}
			at += len(x.text)
		}
		for n := 2; n <= 4; n++ {
			cases++
			// Cut points: at least one inside the first secret, the rest random.
			first := secrets[0]
			cuts := []int{first.s + 1 + g.r.IntN(first.e-first.s-1)}
			for len(cuts) < n-1 {
				c := 1 + g.r.IntN(len(joined)-1)
				if !slices.Contains(cuts, c) {
					cuts = append(cuts, c)
				}
			}
			slices.Sort(cuts)
			var deltas []string
			last := 0
			for _, c := range append(cuts, len(joined)) {
				deltas = append(deltas, joined[last:c])
				last = c
			}
			got := r.Chunks(deltas)
			a := 0
			for k, d := range deltas {
				var want strings.Builder
				for i := 0; i < len(d); i++ {
					pos := a + i
					in := false
					for _, s := range secrets {
						if pos == s.s {
							want.WriteString("[REDACTED:" + s.rule + "]")
						}
						if pos >= s.s && pos < s.e {
							in = true
						}
					}
					if !in {
						want.WriteByte(d[i])
					}
				}
				a += len(d)
				if got[k].Text != want.String() {
					t.Errorf("%s split in %d: delta %d\n  in: %q\n got: %q\nwant: %q", p.name, n, k, d, got[k].Text, want.String())
				}
			}
			checkStream(t, r, block{name: p.name, deltas: deltas}, got)
		}
	}
	t.Logf("split cases: %d (every rule, 2-4 deltas)", cases)
}

func chunkTexts(cs []Chunk) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.Text
	}
	return out
}
