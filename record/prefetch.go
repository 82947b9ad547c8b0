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

// prefetch hands the line redactor the stdout lines that lie whole inside
// the chunks just taken (the splitter passes those on as slices of the
// chunk, which stay as they are until the chunks are done), so that they
// are redacted on other cores while the pipeline pushes the lines before
// them. A line that begins in an earlier chunk, or after a gap, is left
// out: it reaches the redactor from the splitter's own buffer. Every such
// line is handed over: the line redactor bounds the bytes it redacts
// ahead (sanitize.PrefetchWindow), since its helpers keep a redacted copy
// of each line until it is pushed (without a bound, a 200 MB run's peak
// RSS was 67 MiB against 62, 1.58 times a 1 MB run's).
func (p *pipeline) prefetch(items []chunk) {
	if !p.opened || p.ord.lr == nil {
		return
	}
	pf, ok := p.ord.lr.(prefetcher)
	if !ok {
		return
	}
	lines := p.pfLines[:0]
	partial := len(p.out.pending) > 0 || p.out.skipping
	for _, c := range items {
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
			if !partial {
				lines = append(lines, d[:i])
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
