package scan

import (
	"bufio"
	"errors"
	"io"

	"github.com/evcap/evcap/internal/lines"
)

// lineReader is lines.Reader for the scan's reader goroutine, without its
// copies: lines.Reader appends every line to a buffer of its own, grown
// by append (a 10.5 MB line cost 60 MB of allocations and their page
// faults), and the reader then copies each line once more into its batch.
// Here a line that fits in the read buffer is handed out where it lies
// (the reader copies it into the batch), and a longer one is read in
// blocks and put together once, in a buffer of its exact size. Next gives
// what lines.Reader's Next gives: the same lines, ErrTorn with a last line
// that has no newline, and a read error as it is, with the line count
// (Line) where lines.Reader has it. TestLineReaderIsLinesReader compares
// the two.
type lineReader struct {
	br   *bufio.Reader
	line int64
	// blocks hold a long line's bytes until it ends.
	blocks [][]byte
	// longLine, when set, is told the length read so far of a line past
	// bigLine, once per block (Options.LongLine).
	longLine func(n int)
}

// lineBlock is the size of the blocks a long line is read into.
const lineBlock = 1 << 20

func newLineReader(r io.Reader) *lineReader {
	return &lineReader{br: bufio.NewReaderSize(r, 64<<10)}
}

// Line is the number of lines read so far.
func (r *lineReader) Line() int64 { return r.line }

// Next returns the next line without its newline. A line that fits in
// the read buffer is valid until the next call; a longer one (longer than
// 64 KiB: every line past bigLine) is in a buffer of its own, which
// nothing reads into again.
func (r *lineReader) Next() ([]byte, error) {
	chunk, err := r.br.ReadSlice('\n')
	if err == nil {
		r.line++
		return chunk[:len(chunk)-1], nil
	}
	if !errors.Is(err, bufio.ErrBufferFull) {
		return r.end(chunk, err, 0)
	}
	// A long line: its bytes go into blocks, each filled before the next
	// is made, and are put together once the line ends.
	r.blocks = r.blocks[:0]
	total := 0
	put := func(p []byte) {
		total += len(p)
		for len(p) > 0 {
			if k := len(r.blocks); k == 0 || len(r.blocks[k-1]) == cap(r.blocks[k-1]) {
				if r.longLine != nil && total-len(p) > bigLine {
					r.longLine(total - len(p))
				}
				r.blocks = append(r.blocks, make([]byte, 0, lineBlock))
			}
			b := &r.blocks[len(r.blocks)-1]
			n := min(len(p), cap(*b)-len(*b))
			*b = append(*b, p[:n]...)
			p = p[n:]
		}
	}
	put(chunk)
	for {
		chunk, err = r.br.ReadSlice('\n')
		if err != nil && !errors.Is(err, bufio.ErrBufferFull) {
			return r.end(chunk, err, total)
		}
		put(chunk)
		if err == nil {
			if r.longLine != nil && total > bigLine {
				r.longLine(total - 1)
			}
			r.line++
			return r.join(total, 0)[:total-1], nil
		}
	}
}

// end finishes a line cut short by err: at io.EOF the bytes read (held
// bytes in blocks, then tail) are the torn last line, if any; any other
// error is returned as it is, the bytes dropped (as lines.Reader does).
func (r *lineReader) end(tail []byte, err error, held int) ([]byte, error) {
	if !errors.Is(err, io.EOF) {
		r.blocks = r.blocks[:0]
		return nil, err
	}
	if held == 0 {
		if len(tail) == 0 {
			return nil, io.EOF
		}
		r.line++
		return tail, lines.ErrTorn
	}
	if r.longLine != nil && held+len(tail) > bigLine {
		r.longLine(held + len(tail))
	}
	out := append(r.join(held, len(tail)), tail...)
	r.line++
	return out, lines.ErrTorn
}

// join puts the blocks' n bytes together, in a buffer with room for
// extra more, and lets the blocks go.
func (r *lineReader) join(n, extra int) []byte {
	out := make([]byte, 0, n+extra)
	for _, b := range r.blocks {
		out = append(out, b...)
	}
	clear(r.blocks)
	r.blocks = r.blocks[:0]
	return out
}
