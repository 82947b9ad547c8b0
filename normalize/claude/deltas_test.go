package claude_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evcap/evcap/event"
	"github.com/evcap/evcap/internal/corpustest"
	"github.com/evcap/evcap/normalize/claude"
	"github.com/evcap/evcap/provider"
	"github.com/evcap/evcap/replay"
	"github.com/tidwall/gjson"
)

// partialCaptures are the Claude captures, from the corpus and
// corpus-extra; those with --include-partial-messages (*-partial, and
// error-retry's stream_event lines) stream deltas, the others must give none.
func partialCaptures(t *testing.T) []string {
	t.Helper()
	a, _ := filepath.Glob(filepath.Join(corpustest.Dir(t), "claude", "*.stdout.jsonl"))
	b, _ := filepath.Glob("../../testdata/corpus-extra/claude/*.stdout.jsonl")
	if len(a) < 7 || len(b) < 9 {
		t.Fatalf("found %d corpus and %d corpus-extra partial captures", len(a), len(b))
	}
	return append(a, b...)
}

var deltaField = map[string]struct {
	field string
	kind  provider.DeltaKind
}{
	"text_delta":       {"text", provider.DeltaText},
	"thinking_delta":   {"thinking", provider.DeltaThinking},
	"input_json_delta": {"partial_json", provider.DeltaToolInput},
}

// TestDeltasCorpus: every text_delta, thinking_delta and input_json_delta
// line of a partial capture yields exactly one piece, of the right kind, at
// event.delta.<field>; no other line yields a piece; every block ends at
// its content_block_stop (the line naming its index), and the pieces of one
// block are exactly the deltas between its start and stop.
func TestDeltasCorpus(t *testing.T) {
	total := map[provider.DeltaKind]int{}
	for _, file := range partialCaptures(t) {
		ls := corpustest.Deltas(t, claude.Provider(), file)
		blockOf := map[int64]string{} // index → block of the open content block
		for _, l := range ls {
			v := gjson.ParseBytes(l.Line)
			e := v.Get("event")
			var pieces []provider.Delta
			for _, d := range l.Deltas {
				if !d.Start {
					pieces = append(pieces, d)
				}
			}
			idx := e.Get("index").Int()
			switch {
			case v.Get("type").String() == "stream_event" && e.Get("type").String() == "content_block_delta":
				want, ok := deltaField[e.Get("delta.type").String()]
				if !ok {
					if len(pieces) != 0 {
						t.Errorf("%s:%d: %s gave %d pieces", file, l.Ref, e.Get("delta.type"), len(pieces))
					}
					continue
				}
				if len(pieces) != 1 {
					t.Fatalf("%s:%d: %d pieces, want 1", file, l.Ref, len(pieces))
				}
				d := pieces[0]
				if corpustest.PathString(d.Path) != "event.delta."+want.field || d.Kind != want.kind || d.Offset != 0 {
					t.Errorf("%s:%d: got %v %v offset %d, want event.delta.%s %v", file, l.Ref, d.Path, d.Kind, d.Offset, want.field, want.kind)
				}
				if b, ok := blockOf[idx]; ok && b != d.Block {
					t.Errorf("%s:%d: piece of block %q while index %d has block %q open", file, l.Ref, d.Block, idx, b)
				}
				blockOf[idx] = d.Block
				total[d.Kind]++
			case v.Get("type").String() == "stream_event" && e.Get("type").String() == "content_block_start":
				if len(pieces) != 0 {
					t.Errorf("%s:%d: content_block_start gave pieces", file, l.Ref)
				}
				for _, d := range l.Deltas {
					blockOf[idx] = d.Block
				}
			case v.Get("type").String() == "stream_event" && e.Get("type").String() == "content_block_stop":
				if b, ok := blockOf[idx]; ok && (len(l.Ended) != 1 || l.Ended[0] != b) {
					t.Errorf("%s:%d: content_block_stop ended %v, want [%s]", file, l.Ref, l.Ended, b)
				}
				delete(blockOf, idx)
			default:
				if len(pieces) != 0 {
					t.Errorf("%s:%d: a line that is no delta gave %d pieces", file, l.Ref, len(pieces))
				}
			}
		}
	}
	// The corpus holds all three kinds; a tracker that found none of one
	// would pass the loop above.
	for _, k := range []provider.DeltaKind{provider.DeltaText, provider.DeltaThinking, provider.DeltaToolInput} {
		if total[k] == 0 {
			t.Errorf("no %v piece in the partial captures", k)
		}
	}
	t.Logf("pieces: %v", total)
}

// sanitizeKey is the block key of sanitize/blocks.go (per agent, message,
// index and field), the definition the tracker replaces.
type sanitizeKeys struct{ msg map[string]string }

func (s *sanitizeKeys) line(line []byte) (key string, ends []string) {
	v := gjson.ParseBytes(line)
	if v.Get("type").String() != "stream_event" {
		return "", nil
	}
	parent := v.Get("parent_tool_use_id").String()
	ev := v.Get("event")
	prefix := "claude|" + parent + "|"
	switch ev.Get("type").String() {
	case "message_start":
		s.msg[parent] = ev.Get("message.id").String()
		return "", []string{prefix}
	case "content_block_stop":
		return "", []string{prefix + s.msg[parent] + "|" + ev.Get("index").Raw + "|"}
	case "content_block_delta":
		for _, f := range []string{"text", "thinking", "partial_json"} {
			if ev.Get("delta."+f).Type == gjson.String {
				return prefix + s.msg[parent] + "|" + ev.Get("index").Raw + "|" + f, nil
			}
		}
	}
	return "", nil
}

// interleaved builds a stream in which a subagent streams while the main
// agent does, from a real capture: the capture's stream_event lines are
// copied as a subagent's (parent_tool_use_id set, message ids renamed) and
// each copy follows its original line. The corpus has subagents
// (corpus-extra/claude/subagent*) but none whose stream events interleave
// with the main agent's, which is what Claude Code does when a Task runs
// alongside streamed text.
func interleaved(t *testing.T, file string) [][]byte {
	t.Helper()
	var out [][]byte
	corpustest.EachLine(t, file, func(_ int64, line []byte) {
		out = append(out, bytes.Clone(line))
		if gjson.GetBytes(line, "type").String() != "stream_event" {
			return
		}
		c := bytes.Replace(line, []byte(`"parent_tool_use_id":null`), []byte(`"parent_tool_use_id":"toolu_synthetic_sub"`), 1)
		c = bytes.ReplaceAll(c, []byte(`"id":"msg_`), []byte(`"id":"msg_sub_`))
		if bytes.Equal(c, line) {
			t.Fatalf("%s: a stream_event line without parent_tool_use_id null: %.200s", file, line)
		}
		out = append(out, c)
	})
	return out
}

// TestDeltasAgreeWithSanitize: the tracker groups pieces into the same
// blocks as sanitize/blocks.go, on every partial capture and on a subagent
// stream interleaved with the main agent's; and the definition replay's
// cumulator had (one message per stream, any message_start clearing every
// block) does not tell the interleaved agents apart, which is why the
// tracker keeps blocks per parent_tool_use_id.
func TestDeltasAgreeWithSanitize(t *testing.T) {
	type stream struct {
		name  string
		lines [][]byte
	}
	var streams []stream
	total := 0
	for _, file := range partialCaptures(t) {
		var ls [][]byte
		corpustest.EachLine(t, file, func(_ int64, l []byte) { ls = append(ls, bytes.Clone(l)) })
		streams = append(streams, stream{filepath.Base(file), ls})
	}
	streams = append(streams, stream{"synthetic interleaved subagent (tools-partial)",
		interleaved(t, filepath.Join(corpustest.Dir(t), "claude", "tools-partial.stdout.jsonl"))})
	for _, s := range streams {
		tr := claude.NewDeltas()
		ref := &sanitizeKeys{msg: map[string]string{}}
		gen := map[string]int{} // sanitize key → how many times it was flushed
		mine := map[string]string{}
		theirs := map[string]string{}
		pieces := 0
		for i, line := range s.lines {
			ds := tr.Line(line)
			key, ends := ref.line(line)
			for _, p := range ends {
				for k := range gen {
					if len(k) >= len(p) && k[:len(p)] == p {
						gen[k]++
					}
				}
			}
			var got []provider.Delta
			for _, d := range ds {
				if !d.Start {
					got = append(got, d)
				}
			}
			if (key != "") != (len(got) == 1) || len(got) > 1 {
				t.Fatalf("%s:%d: sanitize key %q, tracker pieces %v", s.name, i+1, key, got)
			}
			if key == "" {
				continue
			}
			pieces++
			old := fmt.Sprintf("%s#%d", key, gen[key])
			if m, ok := mine[got[0].Block]; ok && m != old {
				t.Errorf("%s:%d: block %s holds pieces of sanitize blocks %s and %s", s.name, i+1, got[0].Block, m, old)
			}
			if b, ok := theirs[old]; ok && b != got[0].Block {
				t.Errorf("%s:%d: sanitize block %s is split into %s and %s", s.name, i+1, old, b, got[0].Block)
			}
			mine[got[0].Block], theirs[old] = old, got[0].Block
		}
		total += pieces
	}
	if total < 600 {
		t.Errorf("only %d pieces compared", total)
	}

	// The cumulator's key: message id of the last message_start of any
	// agent, and the index.
	lines := streams[len(streams)-1].lines
	tr := claude.NewDeltas()
	msg := ""
	differ := 0
	byKey := map[string]string{}
	for _, line := range lines {
		v := gjson.ParseBytes(line)
		if v.Get("event.type").String() == "message_start" {
			msg = v.Get("event.message.id").String()
		}
		for _, d := range tr.Line(line) {
			if d.Start {
				continue
			}
			k := msg + "|" + v.Get("event.index").Raw
			// The old key sends both agents' pieces to one block.
			if b, ok := byKey[k]; ok && b != d.Block {
				differ++
			}
			byKey[k] = d.Block
		}
	}
	if differ == 0 {
		t.Error("the cumulator's old key agrees with the tracker on interleaved agents: the synthetic stream does not interleave")
	}
}

// TestDeltasMatchNormalizer: the blocks are the normalizer's. Rewriting
// the interleaved stream's text and thinking pieces into cumulative
// snapshots by the tracker's blocks (replay.CumulativeLinesOf) and reading
// them with CumulativeDeltas gives exactly the events of the original
// stream; with blocks shared between the agents the snapshots would repeat
// the other agent's text.
func TestDeltasMatchNormalizer(t *testing.T) {
	lines := interleaved(t, filepath.Join(corpustest.Dir(t), "claude", "tools-partial.stdout.jsonl"))
	norm := func(n event.Normalizer, ls [][]byte) string {
		var b bytes.Buffer
		for i, l := range ls {
			for _, e := range n.Line(int64(i+1), l) {
				j, _ := json.Marshal(e)
				b.Write(append(j, '\n'))
			}
		}
		for _, e := range n.End() {
			j, _ := json.Marshal(e)
			b.Write(append(j, '\n'))
		}
		return b.String()
	}
	want := norm(claude.New(), lines)
	cum := replay.CumulativeLinesOf(claude.Provider(), lines)
	changed := 0
	for i := range cum {
		if !bytes.Equal(cum[i], lines[i]) {
			changed++
		}
	}
	if changed < 10 {
		t.Fatalf("only %d lines made snapshots", changed)
	}
	if got := norm(claude.NewWithOptions(claude.Options{CumulativeDeltas: true}), cum); got != want {
		t.Errorf("snapshots read back differ from the original events:\n%s", firstDiff(want, got))
	}
}

func firstDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := range min(len(al), len(bl)) {
		if al[i] != bl[i] {
			return fmt.Sprintf("line %d\nwant %s\n got %s", i+1, al[i], bl[i])
		}
	}
	return fmt.Sprintf("lengths %d and %d", len(al), len(bl))
}
