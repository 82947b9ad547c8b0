package record

import "bytes"

// prefetcher is a line redactor that can redact lines ahead on other
// cores (sanitize.LineRedactor.Prefetch): the lines given must be the
// very slices later pushed, unchanged until EndPrefetch.
type prefetcher interface {
	Prefetch(lines [][]byte)
	EndPrefetch()
}

// prefetchMin is how many whole stdout lines the chunks taken at once
// must hold for the redaction of some of them to go to other cores: a
// slow agent's line or two is redacted where it is pushed, as before.
const prefetchMin = 4

// prefetchMaxBytes bounds the bytes of lines handed over at once: the
// helpers hold a redacted copy of each line until it is pushed, and
// without a bound a large batch of chunks doubled the memory in flight
// (peak RSS of a 200 MB run 62 -> 67 MiB, 1.58 times a 1 MB run's).
// Lines past it are redacted where they are pushed.
const prefetchMaxBytes = 256 << 10

// longLineBytes is the length from which a line's end widens the window
// after it (see pipeline.window), and maxLongPrefetch how far at most: the
// helpers' redacted copies and the chunks they read stay in memory until
// the window is done, within the bound of a few times the longest line.
const (
	longLineBytes   = 1 << 20
	maxLongPrefetch = 8 << 20
)

// prefetch hands the line redactor the stdout lines that lie whole inside
// the chunks just taken (the splitter passes those on as slices of the
// chunk, which stay as they are until the chunks are done), so that they
// are redacted on other cores while the pipeline pushes the lines before
// them. A line that begins in an earlier chunk, or after a gap, is left
// out: it reaches the redactor from the splitter's own buffer.
//
// bound is how many bytes of lines may be handed over (see window).
func (p *pipeline) prefetch(items []chunk, bound int) {
	if !p.opened || p.ord.lr == nil {
		return
	}
	pf, ok := p.ord.lr.(prefetcher)
	if !ok {
		return
	}
	lines := p.pfLines[:0]
	size := 0
	partial := len(p.out.pending) > 0 || p.out.skipping
	last := 0
	for ci, c := range items {
		if c.stream != streamStdout || c.eof {
			continue
		}
		if c.data == nil {
			// A gap: the splitter drops the line it tore, and skips to the
			// next newline unless the dropped bytes ended one.
			partial = !c.gapEndsLine
			continue
		}
		d := c.data
		for {
			i := bytes.IndexByte(d, '\n')
			if i < 0 {
				partial = partial || len(d) > 0
				break
			}
			if !partial && size+i <= bound {
				lines = append(lines, d[:i])
				size += i
				last = ci + 1
			}
			partial = false
			d = d[i+1:]
		}
	}
	p.pfLines = lines
	if len(lines) < prefetchMin {
		clear(lines)
		return
	}
	pf.Prefetch(lines)
	p.pf = pf
	p.pfChunks = last
}

// endPrefetch stops the prefetch once the chunks are done.
func (p *pipeline) endPrefetch() {
	if p.pf == nil {
		return
	}
	p.pf.EndPrefetch()
	p.pf = nil
	clear(p.pfLines)
	p.pfLines = p.pfLines[:0]
}
