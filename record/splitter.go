package record

import "bytes"

// splitter cuts one stream's chunks into lines. It holds at most the line
// being assembled. After a gap mark it discards the rest of the line the
// gap tore (its start is lost) and counts it into the gap, so a gap never
// produces a spliced line that the child did not write.
type splitter struct {
	pending  []byte
	skipping bool
	gapBytes int64
	gapLines int64
	// handed is true while line is called with an assembled line whose
	// buffer the splitter gives up after the call (a huge one, see
	// maxKept): the callee may keep it instead of copying it.
	handed bool
	// longLine, when set, is told the known length of a line being
	// assembled each time its buffer grows, once that passes
	// longLineBytes (Options.LongLine).
	longLine func(n int)
}

// maxKept is the largest line buffer kept for the next line; a buffer
// grown by a huge line is given back, not kept for the run.
const maxKept = 4 << 20

// feed calls line for each complete line in p (without its newline) and
// gapEnd when a torn-by-gap line ends. The slice given to line is valid
// only during the call. ahead, when not nil, tells how many bytes of the
// line being assembled are known to follow p (see grow).
func (s *splitter) feed(p []byte, ahead func() (n int, ends bool), line func([]byte), gapEnd func(bytes, lines int64)) {
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if s.skipping {
			if i < 0 {
				s.gapBytes += int64(len(p))
				return
			}
			s.gapBytes += int64(i + 1)
			s.gapLines++
			s.skipping = false
			gapEnd(s.gapBytes, s.gapLines)
			s.gapBytes, s.gapLines = 0, 0
			p = p[i+1:]
			continue
		}
		if i < 0 {
			s.grow(len(p), ahead)
			s.pending = append(s.pending, p...)
			return
		}
		if len(s.pending) > 0 {
			s.grow(i, nil)
			s.pending = append(s.pending, p[:i]...)
			s.handed = cap(s.pending) > maxKept
			line(s.pending)
			s.handed = false
			s.reset()
		} else {
			line(p[:i])
		}
		p = p[i+1:]
	}
}

// grow makes room in pending for n more bytes of the line. Left to
// append, a line of many MiB assembled from 64 KiB chunks would be copied
// to ever larger buffers, five times its size in all (append grows a large
// slice by a quarter), each of fresh pages. Instead the buffer is sized
// for what ahead says already waits of the line (to its newline when that
// is known), and otherwise doubled; past what is kept for the next line
// (maxKept), a line whose end is known gets its exact size.
func (s *splitter) grow(n int, ahead func() (int, bool)) {
	need := len(s.pending) + n
	if need <= cap(s.pending) {
		return
	}
	size := max(need, 2*cap(s.pending))
	if ahead != nil {
		if more, ends := ahead(); ends {
			size = max(need+more, min(size, maxKept))
		} else {
			size = max(size, need+more)
		}
	} else if size > maxKept {
		size = need
	}
	if s.longLine != nil {
		known := need
		if ahead != nil {
			if more, ends := ahead(); ends {
				known += more
			}
		}
		if known >= longLineBytes {
			s.longLine(known)
		}
	}
	b := make([]byte, len(s.pending), size)
	copy(b, s.pending)
	s.pending = b
}

// gap notes n dropped bytes holding newlines newlines: the line being
// assembled is lost, and so is the rest of the line the gap ends in unless
// the dropped bytes ended with a newline. gapEnd is called at once in that
// case, otherwise when the torn line ends.
func (s *splitter) gap(n, newlines int64, endsLine bool, gapEnd func(bytes, lines int64)) {
	s.gapBytes += n + int64(len(s.pending))
	s.gapLines += newlines
	s.reset()
	if endsLine {
		gapEnd(s.gapBytes, s.gapLines)
		s.gapBytes, s.gapLines, s.skipping = 0, 0, false
		return
	}
	s.skipping = true
}

func (s *splitter) reset() {
	if cap(s.pending) > maxKept {
		s.pending = nil
	} else {
		s.pending = s.pending[:0]
	}
}

// end returns the unterminated last line, if any, and a gap still open.
func (s *splitter) end() (torn []byte, gapBytes, gapLines int64, inGap bool) {
	if s.skipping {
		return nil, s.gapBytes, s.gapLines + 1, true
	}
	if len(s.pending) == 0 {
		return nil, 0, 0, false
	}
	return s.pending, 0, 0, false
}
