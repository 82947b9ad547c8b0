package scan

import (
	"bytes"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math/rand/v2"
	"slices"
	"testing"
	"testing/iotest"

	"github.com/evcap/evcap/internal/lines"
)

// randReader hands out its data in reads of random sizes, then err (io.EOF
// when nil).
type randReader struct {
	data []byte
	r    *rand.Rand
	err  error
}

func (x *randReader) Read(p []byte) (int, error) {
	if len(x.data) == 0 {
		if x.err != nil {
			return 0, x.err
		}
		return 0, io.EOF
	}
	n := min(len(p), len(x.data), 1+x.r.IntN(3*lineBlock/2))
	n = copy(p, x.data[:n])
	x.data = x.data[n:]
	return n, nil
}

// steps reads every line of data with next and line, as "LINE n: text",
// "ERR n: error" steps.
func steps(next func() ([]byte, error), line func() int64) []string {
	var out []string
	for {
		l, err := next()
		if err == io.EOF {
			return append(out, fmt.Sprintf("EOF %d", line()))
		}
		if err != nil && !errors.Is(err, lines.ErrTorn) {
			return append(out, fmt.Sprintf("ERR %d: %v", line(), err))
		}
		out = append(out, fmt.Sprintf("LINE %d %v: %d bytes, crc %08x", line(), err, len(l), crc32.ChecksumIEEE(l)))
	}
}

// TestLineReaderIsLinesReader: lineReader gives lines.Reader's lines,
// torn last lines, errors and line counts, on lines of every length
// around the read buffer's 64 KiB and the 1 MiB blocks, read in pieces of
// random sizes, with and without a final newline and a read error.
func TestLineReaderIsLinesReader(t *testing.T) {
	r := rand.New(rand.NewPCG(23, 24))
	lens := []int{0, 1, 5, 100, 64<<10 - 2, 64<<10 - 1, 64 << 10, 64<<10 + 1, 200 << 10, lineBlock - 1, lineBlock, lineBlock + 1, 2*lineBlock + 7}
	n := 60
	if raceOn {
		n = 12
	}
	for c := range n {
		var data []byte
		for range 1 + r.IntN(5) {
			l := lens[r.IntN(len(lens))]
			if r.IntN(3) > 0 {
				l = r.IntN(300)
			}
			line := bytes.Repeat([]byte{byte('a' + r.IntN(26))}, l)
			if l > 2 {
				line[r.IntN(l)] = '\r'
			}
			data = append(append(data, line...), '\n')
		}
		if c%3 == 1 && len(data) > 0 {
			data = data[:len(data)-1-r.IntN(min(len(data), 40))] // torn
		}
		var err error
		if c%4 == 3 {
			err = errors.New("disk on fire")
			data = data[:r.IntN(len(data)+1)]
		}
		seed := r.Uint64()
		lr := lines.NewReader(&randReader{data: data, r: rand.New(rand.NewPCG(seed, 1)), err: err})
		want := steps(lr.Next, lr.Line)
		our := newLineReader(&randReader{data: data, r: rand.New(rand.NewPCG(seed, 2)), err: err})
		got := steps(our.Next, our.Line)
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("case %d (%d bytes, error %v): lineReader and lines.Reader differ", c, len(data), err)
		}
	}
}

// TestLineReaderTellsLongLines reads short lines and lines over bigLine,
// the last one torn: longLine hears of each long line while it is read,
// with lengths that grow to the line's own, and never of a short line.
func TestLineReaderTellsLongLines(t *testing.T) {
	lens := []int{10, bigLine + 1, 100, 3*bigLine + 17, 64 << 10, 20}
	var in bytes.Buffer
	for _, n := range lens {
		in.Write(bytes.Repeat([]byte("a"), n))
		in.WriteByte('\n')
	}
	in.Write(bytes.Repeat([]byte("b"), 2*bigLine)) // torn: no newline
	var told []int
	r := newLineReader(iotest.HalfReader(bytes.NewReader(in.Bytes())))
	r.longLine = func(n int) { told = append(told, n) }
	var maxTold []int // the largest figure told during each line
	for {
		told = told[:0]
		l, err := r.Next()
		if err == io.EOF {
			break
		}
		m := 0
		for _, n := range told {
			if n <= bigLine || n > len(l) {
				t.Errorf("line %d (%d bytes): told %d", r.Line(), len(l), n)
			}
			m = max(m, n)
		}
		maxTold = append(maxTold, m)
	}
	want := []int{0, bigLine + 1, 0, 3*bigLine + 17, 0, 0, 2 * bigLine}
	if !slices.Equal(maxTold, want) {
		t.Errorf("largest length told per line %v, want %v", maxTold, want)
	}
}
