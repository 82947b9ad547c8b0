package opencode_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/evcap/evcap/event"
	"github.com/evcap/evcap/internal/corpustest"
	"github.com/evcap/evcap/normalize/opencode"
	"github.com/evcap/evcap/provider"
	"github.com/tidwall/gjson"
)

func opencodeCaptures(t *testing.T) []string {
	t.Helper()
	var files []string
	for _, dir := range []string{filepath.Join(corpustest.Dir(t), "opencode"), "../../testdata/corpus-extra/opencode"} {
		for _, pat := range []string{"*.stdout.jsonl", "*.sse.txt"} {
			m, _ := filepath.Glob(filepath.Join(dir, pat))
			files = append(files, m...)
		}
	}
	if len(files) < 12 {
		t.Fatalf("found %d opencode captures", len(files))
	}
	return files
}

// payload is the JSON of a bus line: the line, or what follows "data:".
func payload(line []byte) (gjson.Result, int) {
	s := string(line)
	if rest, ok := strings.CutPrefix(s, "data:"); ok {
		off := len("data:")
		if strings.HasPrefix(rest, " ") {
			off++
		}
		return gjson.Parse(s[off:]), off
	}
	return gjson.Parse(s), 0
}

// TestDeltasCorpus: every message.part.delta payload (one per line, or
// behind "data:" in raw SSE) yields exactly one piece at properties.delta,
// in the block of its part and field, at the offset of the payload; no
// other line yields one; a part's blocks end at the message.part.updated
// that gives it time.end (or when the session goes idle); and the kinds
// are the normalizer's (thinking for a reasoning part).
func TestDeltasCorpus(t *testing.T) {
	pieces, sse := 0, 0
	for _, file := range opencodeCaptures(t) {
		ls := corpustest.Deltas(t, opencode.Provider(), file)
		kindOf := map[int64]event.Kind{}
		n := opencode.New()
		for _, l := range ls {
			for _, e := range n.Line(l.Ref, l.Line) {
				if e.Phase == event.PhaseDelta && len(e.Cause) == 1 {
					kindOf[e.Cause[0]] = e.Kind
				}
			}
		}
		for _, e := range n.End() {
			if e.Phase == event.PhaseDelta && len(e.Cause) == 1 {
				kindOf[e.Cause[0]] = e.Kind
			}
		}
		blockOf := map[string]string{} // partID + field → open block
		for _, l := range ls {
			v, off := payload(l.Line)
			p := v.Get("properties")
			switch v.Get("type").String() {
			case "message.part.delta":
				if len(l.Deltas) != 1 {
					t.Fatalf("%s:%d: %d pieces, want 1", file, l.Ref, len(l.Deltas))
				}
				d := l.Deltas[0]
				key := p.Get("partID").String() + "|" + p.Get("field").String()
				if corpustest.PathString(d.Path) != "properties.delta" || d.Offset != off {
					t.Errorf("%s:%d: path %v offset %d, want properties.delta at %d", file, l.Ref, d.Path, d.Offset, off)
				}
				if b, ok := blockOf[key]; ok && b != d.Block {
					t.Errorf("%s:%d: block %q while %q is open for %s", file, l.Ref, d.Block, b, key)
				}
				blockOf[key] = d.Block
				want := provider.DeltaText
				if kindOf[l.Ref] == event.KindThinking {
					want = provider.DeltaThinking
				}
				if k, ok := kindOf[l.Ref]; ok && d.Kind != want {
					t.Errorf("%s:%d: kind %v, the normalizer says %s", file, l.Ref, d.Kind, k)
				}
				pieces++
				if off > 0 {
					sse++
				}
			case "message.part.updated":
				id := p.Get("part.id").String()
				if len(l.Deltas) != 0 {
					t.Errorf("%s:%d: pieces in a part update", file, l.Ref)
				}
				for key, b := range blockOf {
					ended := false
					for _, e := range l.Ended {
						ended = ended || e == b
					}
					if strings.HasPrefix(key, id+"|") && p.Get("part.time.end").Exists() {
						if !ended {
							t.Errorf("%s:%d: part %s finished but block %s did not end", file, l.Ref, id, b)
						}
						delete(blockOf, key)
					} else if ended {
						t.Errorf("%s:%d: block %s ended at an update of another part", file, l.Ref, b)
					}
				}
			default:
				if len(l.Deltas) != 0 {
					t.Errorf("%s:%d: a line that is no delta gave %+v", file, l.Ref, l.Deltas)
				}
				idle := v.Get("type").String() == "session.idle" ||
					(v.Get("type").String() == "session.status" && p.Get("status.type").String() == "idle")
				if len(l.Ended) > 0 && !idle {
					t.Errorf("%s:%d: blocks %v ended at a %s line", file, l.Ref, l.Ended, v.Get("type"))
				}
				if idle {
					if len(l.Ended) != len(blockOf) {
						t.Errorf("%s:%d: idle ended %v, open were %v", file, l.Ref, l.Ended, blockOf)
					}
					for key := range blockOf {
						delete(blockOf, key)
					}
				}
			}
		}
	}
	if pieces < 100 || sse < 50 {
		t.Errorf("only %d pieces (%d in raw SSE)", pieces, sse)
	}
	t.Logf("%d pieces, %d of them in raw SSE", pieces, sse)
}
