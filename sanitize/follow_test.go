package sanitize

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/evcap/evcap/redact"
	"github.com/google/go-cmp/cmp"
)

// TestFollowersGetTheirOwnStreamsChunks drives blocks with following on
// and off through the same random calls: native blocks, and normalized
// and legacy blocks given the same deltas, sometimes other ones, flushed
// or cut at the same point or another, with secrets and paths split
// across deltas. Every hole must get the same chunk either way.
func TestFollowersGetTheirOwnStreamsChunks(t *testing.T) {
	red, err := redact.New(redact.Options{Home: "/home/dev", Project: "/home/dev/src/app"})
	if err != nil {
		t.Fatal(err)
	}
	pieces := []string{"hello ", "world ", "sk-ant-api03-", "AAAABBBBCCCCDDDDEEEEFFFFGGGGHHHHIIIIJJJJKKKKLLLLMMMMNNNNOOOO", "PPPP", " and ",
		"/home/dev/", "src/app/main.go ", "password=", "hunter2hunter2 ", "\n", "AKIA", "IOSFODNN7EXAMPLE ", "x"}
	rounds := 60
	if raceEnabled {
		rounds = 4
	}
	followed, diverged := 0, 0
	for round := range rounds {
		var got, want []string
		run := func(follow bool, out *[]string) {
			b := newBlocks(func() *redact.Redactor { return red }, 64)
			b.follow = follow
			var holes []*hole
			r := rand.New(rand.NewPCG(uint64(round), 7))
			for blk := range 3 {
				nk := fmt.Sprintf("native|claude|%d\x00", blk)
				fk := fmt.Sprintf("norm|text|m|%d", blk)
				lk := "legacy|[CONTENT_DELTA]"
				var texts []string
				for range 1 + r.IntN(12) {
					texts = append(texts, pieces[r.IntN(len(pieces))])
				}
				for i, tx := range texts {
					for _, k := range []string{nk, fk, lk} {
						d := tx
						if k != nk && r.IntN(15) == 0 {
							d = pieces[r.IntN(len(pieces))] // a follower given another delta
						}
						h := &hole{key: k, origLen: len(d)}
						holes = append(holes, h)
						was := b.open[k]
						b.push(h, d)
						if follow && k != nk {
							bs := b.open[k]
							if bs != was && bs.fol != nil {
								followed++
							}
							if bs == was && was != nil && was.s != nil && was.hist == nil && was.pos > 0 {
								diverged++
								was.pos = 0 // counted once
							}
						}
						if r.IntN(20) == 0 {
							b.cut(k)
						}
					}
					if i == len(texts)-1 || r.IntN(10) == 0 {
						b.flush(nk)
					}
					if r.IntN(12) == 0 {
						b.flush(fk)
					}
				}
				b.flush(nk)
				b.flush(fk)
				if r.IntN(2) == 0 {
					b.flush("legacy|")
				}
			}
			b.flush("")
			for _, h := range holes {
				*out = append(*out, fmt.Sprintf("%v %q %v", h.done, h.chunk.Text, h.chunk.Findings))
			}
		}
		run(false, &want)
		run(true, &got)
		if d := cmp.Diff(want, got); d != "" {
			t.Fatalf("round %d: chunks differ with following (-own streams +following):\n%s", round, d)
		}
	}
	if followed < rounds || diverged < rounds/4 {
		t.Fatalf("%d blocks followed a native one and %d of them made their own stream later: the test does not exercise following", followed, diverged)
	}
}
