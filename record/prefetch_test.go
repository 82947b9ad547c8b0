package record

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/evcap/evcap/sanitize"
)

// fakePrefetcher is a line redactor that only remembers what Prefetch got.
type fakePrefetcher struct {
	got [][]byte
}

func (f *fakePrefetcher) Push([]byte) []sanitize.RedactedLine       { return nil }
func (f *fakePrefetcher) PushStderr([]byte) []sanitize.RedactedLine { return nil }
func (f *fakePrefetcher) Flush() []sanitize.RedactedLine            { return nil }
func (f *fakePrefetcher) Release() []sanitize.RedactedLine          { return nil }
func (f *fakePrefetcher) EarlyFlushes() int                         { return 0 }
func (f *fakePrefetcher) PartialRedactions() int                    { return 0 }
func (f *fakePrefetcher) Prefetch(lines [][]byte)                   { f.got = append([][]byte(nil), lines...) }
func (f *fakePrefetcher) EndPrefetch()                              {}

type lineRef struct {
	at *byte
	n  int
}

// TestPrefetchPicksTheSplitterLines checks that the lines the pipeline
// hands to Prefetch are exactly the lines the splitter then passes on as
// slices of a chunk (the ones Push can find): random chunkings of lines,
// with a line pending from before, gaps, stderr chunks in between.
func TestPrefetchPicksTheSplitterLines(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	compared := 0
	for round := range 300 {
		fp := &fakePrefetcher{}
		p := &pipeline{opened: true}
		p.ord.lr = fp
		// The splitter as the pipeline left it after earlier chunks.
		if r.IntN(3) == 0 {
			p.out.feed([]byte(`{"pending":`), nil, func([]byte) {}, func(int64, int64) {})
		}
		var items []chunk
		for range 1 + r.IntN(12) {
			switch r.IntN(8) {
			case 0:
				items = append(items, chunk{stream: streamStderr, data: []byte("err line\n")})
			case 1:
				items = append(items, chunk{stream: streamStdout, gapBytes: 10, gapNewlines: int64(r.IntN(2)), gapEndsLine: r.IntN(2) == 0})
			default:
				var b []byte
				for range r.IntN(6) {
					b = fmt.Appendf(b, `{"n":%d,"pad":"%s"}`, r.IntN(1000), make([]byte, r.IntN(40)))
					if r.IntN(5) > 0 {
						b = append(b, '\n')
					}
				}
				items = append(items, chunk{stream: streamStdout, data: b})
			}
		}
		// What the splitter passes on as slices of a chunk.
		sp := p.out
		sp.pending = append([]byte(nil), p.out.pending...)
		var want []lineRef
		for _, c := range items {
			if c.stream != streamStdout {
				continue
			}
			if c.data == nil {
				sp.gap(c.gapBytes, c.gapNewlines, c.gapEndsLine, func(int64, int64) {})
				continue
			}
			sp.feed(c.data, nil, func(l []byte) {
				fromPending := len(sp.pending) > 0 && len(l) > 0 && &l[0] == &sp.pending[0]
				if len(l) > 0 && !fromPending {
					want = append(want, lineRef{&l[0], len(l)})
				}
			}, func(int64, int64) {})
		}
		p.prefetch(items, prefetchMaxBytes)
		var got []lineRef
		for _, l := range fp.got {
			if len(l) > 0 {
				got = append(got, lineRef{&l[0], len(l)})
			}
		}
		if len(want) >= prefetchMin {
			compared++
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("round %d: Prefetch got %d lines %v, the splitter passes on %d %v", round, len(got), got, len(want), want)
			}
		} else if len(got) != 0 {
			t.Fatalf("round %d: Prefetch called with %d lines, fewer than %d whole ones", round, len(got), prefetchMin)
		}
		p.endPrefetch()
	}
	if compared < 50 {
		t.Fatalf("only %d of 300 rounds had %d whole lines to compare", compared, prefetchMin)
	}
}

// TestPrefetchIsBounded checks that at most prefetchMaxBytes of lines go
// to Prefetch at once, the first of the chunks' whole lines, however many
// the chunks taken at once hold (the helpers keep a redacted copy of each
// until it is pushed).
func TestPrefetchIsBounded(t *testing.T) {
	fp := &fakePrefetcher{}
	p := &pipeline{opened: true}
	p.ord.lr = fp
	line := fmt.Appendf(nil, `{"pad":"%s"}`, make([]byte, 1000))
	var items []chunk
	for range 8 {
		var b []byte
		for range 100 {
			b = append(append(b, line...), '\n')
		}
		items = append(items, chunk{stream: streamStdout, data: b})
	}
	p.prefetch(items, prefetchMaxBytes)
	size := 0
	for i, l := range fp.got {
		size += len(l)
		if &l[0] != &items[i/100].data[(i%100)*(len(line)+1)] {
			t.Fatalf("line %d handed over is not the %dth line of the chunks", i, i)
		}
	}
	if size > prefetchMaxBytes || size < prefetchMaxBytes-len(line) {
		t.Fatalf("Prefetch got %d bytes of lines (%d lines), want at most %d and no line fewer", size, len(fp.got), prefetchMaxBytes)
	}
	p.endPrefetch()
}

// TestWindowAfterLongLine checks how the chunks taken are cut into
// windows: the middle of a long line (chunks without a newline) is a
// window of its own, ordinary chunks go in windows of prefetchMaxBytes,
// and the window whose first chunk ends a line of longLineBytes or more
// grows to half that line, with as many bytes of lines to prefetch.
func TestWindowAfterLongLine(t *testing.T) {
	p := &pipeline{opened: true}
	piece := bytes.Repeat([]byte("x"), 64<<10)
	line := append(bytes.Repeat([]byte("y"), 999), '\n')
	var items []chunk
	for range 3 * longLineBytes / len(piece) {
		items = append(items, chunk{stream: streamStdout, data: piece})
	}
	mid := len(items)
	for range 100 {
		items = append(items, chunk{stream: streamStdout, data: append([]byte("x\n"), bytes.Repeat(line, 64)...)})
	}
	p.out.pending = []byte("{")
	j, bound := p.window(items, 0)
	if j != mid || bound != prefetchMaxBytes {
		t.Fatalf("middle of the long line: window [0,%d) bound %d, want [0,%d) bound %d", j, bound, mid, prefetchMaxBytes)
	}
	p.out.pending = make([]byte, 1+3*longLineBytes) // what the splitter holds then
	j, bound = p.window(items, mid)
	wantBound := min((len(p.out.pending)+1)/2, maxLongPrefetch)
	size := 0
	for _, c := range items[mid:j] {
		size += len(c.data)
	}
	if bound != wantBound || size > bound || j < len(items) && size+len(items[j].data) <= bound {
		t.Fatalf("after the long line: window of %d bytes, bound %d; want %d bytes at most and no chunk fewer", size, bound, wantBound)
	}
	p.out.pending = p.out.pending[:0]
	j, bound = p.window(items, mid)
	if bound != prefetchMaxBytes || j-mid != prefetchMaxBytes/len(items[mid].data) {
		t.Fatalf("ordinary chunks: window of %d chunks, bound %d; want %d chunks, bound %d", j-mid, bound, prefetchMaxBytes/len(items[mid].data), prefetchMaxBytes)
	}
}
