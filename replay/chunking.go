package replay

import (
	"fmt"
	"iter"
	"math/rand/v2"
	"strconv"
	"strings"
)

// Chunking says how a native stream is split into the pieces that reach the
// code under test, one piece per Read (Go pipelines) or per write to the
// child's stdin (--exec). Code that reads a stream must give the same
// output however it is split; each chunking probes one way of being wrong.
type Chunking struct {
	Kind ChunkKind
	// Seed picks the split points of ChunkRandom.
	Seed uint64
}

// ChunkKind names a way of splitting.
type ChunkKind string

// The chunkings.
const (
	// ChunkWhole feeds the stream in one piece (a reader given a large
	// buffer gets it all at once).
	ChunkWhole ChunkKind = "whole"
	// ChunkLine feeds one line, with its newline, per piece.
	ChunkLine ChunkKind = "line"
	// ChunkByte feeds one byte per piece.
	ChunkByte ChunkKind = "byte"
	// ChunkRandom cuts the stream at seeded random points, across line
	// ends and inside UTF-8 sequences alike.
	ChunkRandom ChunkKind = "random"
)

// ParseChunking reads "whole", "line", "byte" or "random:SEED".
func ParseChunking(s string) (Chunking, error) {
	switch k := ChunkKind(s); k {
	case ChunkWhole, ChunkLine, ChunkByte:
		return Chunking{Kind: k}, nil
	}
	if seed, ok := strings.CutPrefix(s, "random:"); ok {
		n, err := strconv.ParseUint(seed, 10, 64)
		if err != nil {
			return Chunking{}, fmt.Errorf("%w: chunking %q: the seed must be a number (random:7)", ErrBadInput, s)
		}
		return Chunking{Kind: ChunkRandom, Seed: n}, nil
	}
	return Chunking{}, fmt.Errorf("%w: chunking %q: want whole, line, byte or random:SEED", ErrBadInput, s)
}

// String is the form ParseChunking reads.
func (c Chunking) String() string {
	if c.Kind == ChunkRandom {
		return "random:" + strconv.FormatUint(c.Seed, 10)
	}
	return string(c.Kind)
}

// DefaultChunkings are the chunkings the helpers use when given none:
// whole, line, byte and three random seeds.
func DefaultChunkings() []Chunking {
	return []Chunking{{Kind: ChunkWhole}, {Kind: ChunkLine}, {Kind: ChunkByte},
		{Kind: ChunkRandom, Seed: 1}, {Kind: ChunkRandom, Seed: 2}, {Kind: ChunkRandom, Seed: 3}}
}

// Chunk is one piece of the stream and the lines it holds bytes of.
type Chunk struct {
	// Data is the piece; it is valid until the next chunk is asked for.
	Data []byte
	// First and Last are the Index of the first and the last native line
	// the piece holds bytes of (a newline counts as its line's byte).
	First, Last int
	// LineEnd says the piece ends at the end of a line (after a newline).
	LineEnd bool
}

// Chunks yields the stream of lines (each followed by a newline) split as c
// says. Random pieces are 1 to 64 bytes long, with one in eight up to 4 KiB,
// so that both short reads and pieces spanning several lines occur.
func (c Chunking) Chunks(lines []NativeLine) iter.Seq[Chunk] {
	return func(yield func(Chunk) bool) {
		switch c.Kind {
		case ChunkWhole:
			if len(lines) > 0 {
				yield(Chunk{Data: StreamBytes(lines), First: lines[0].Index, Last: lines[len(lines)-1].Index, LineEnd: true})
			}
			return
		case ChunkLine:
			for _, l := range lines {
				if !yield(Chunk{Data: append(append([]byte(nil), l.Line...), '\n'), First: l.Index, Last: l.Index, LineEnd: true}) {
					return
				}
			}
			return
		}
		size := func() int { return 1 }
		if c.Kind == ChunkRandom {
			rng := rand.New(rand.NewPCG(c.Seed, 0x63686e6b))
			size = func() int {
				if rng.IntN(8) == 0 {
					return 1 + rng.IntN(4096)
				}
				return 1 + rng.IntN(64)
			}
		}
		// Walk the stream line by line without building it whole.
		var buf []byte
		li, off := 0, 0 // position: line li, byte off of line+newline
		for li < len(lines) {
			n := size()
			buf = buf[:0]
			first := lines[li].Index
			last := first
			end := false
			for n > 0 && li < len(lines) {
				l := lines[li].Line
				last = lines[li].Index
				rest := len(l) + 1 - off
				take := min(n, rest)
				if off < len(l) {
					buf = append(buf, l[off:min(off+take, len(l))]...)
				}
				if off+take == len(l)+1 {
					buf = append(buf, '\n')
				}
				off += take
				n -= take
				end = off == len(l)+1
				if end {
					li, off = li+1, 0
				}
			}
			if !yield(Chunk{Data: buf, First: first, Last: last, LineEnd: end}) {
				return
			}
		}
	}
}
