package sanitize

import (
	"strings"

	"github.com/evcap/evcap/redact"
)

// A capture holds each streamed text up to three times: the native
// deltas, the normalized deltas made from them and the legacy markers made
// from those, each stage a block of its own with its own redact.Stream. A
// Stream's output is a function of what it was given (the deltas pushed,
// in order, and where it was flushed or cut) and of its redactor, so a
// normalized or legacy block that has been given exactly what a native
// block was given gets exactly the chunks that block got. Such a block
// follows the native block (its leader): it takes the leader's logged
// chunks instead of running a Stream of its own, and keeps what it was
// given. At the first difference (another delta, a flush or cut at
// another point, a leader whose log no longer reaches back that far) it
// makes its own Stream, gives it everything it was given so far, and goes
// on with it: the output is the one its own Stream would have had from the
// start.

const (
	opPush uint8 = iota
	opFlush
	opCut
	opRelease
	opReleaseNow
)

// streamOp is one call on a block's stream; out and cuts (how many more
// times Cuts counts after it) are what it gave.
type streamOp struct {
	kind uint8
	text string
	out  []redact.Chunk
	cuts int
}

// Bounds of what following keeps: a leader's log (entries and text
// bytes; followers lag a few records behind), a follower's own ops (past
// it, the follower makes its Stream), the leaders remembered.
const (
	maxLeaderLog   = 512
	maxLeaderBytes = 256 << 10
	maxFollowBytes = 1 << 20
	maxLeaders     = 8
)

// follows reports whether a block of this key may follow a native one.
func follows(key string) bool {
	return strings.HasPrefix(key, "norm|") || strings.HasPrefix(key, "legacy|")
}

// newBlockStream starts the stream of a block whose first delta is text.
func (b *blocks) newBlockStream(key, text string) *blockStream {
	r := b.r()
	bs := &blockStream{red: r}
	switch {
	case !b.follow:
		bs.s = r.NewStream(b.lookahead)
	case strings.HasPrefix(key, nativeKey):
		bs.s, bs.lead = r.NewStream(b.lookahead), true
		if len(b.leaders) == maxLeaders {
			copy(b.leaders, b.leaders[1:])
			b.leaders[len(b.leaders)-1] = nil
			b.leaders = b.leaders[:len(b.leaders)-1]
		}
		b.leaders = append(b.leaders, bs)
	case follows(key):
		for i := len(b.leaders) - 1; i >= 0; i-- {
			l := b.leaders[i]
			if l.red == r && l.logStart == 0 && len(l.log) > 0 && l.log[0].kind == opPush && l.log[0].text == text {
				bs.fol = l
				break
			}
		}
		if bs.fol == nil {
			bs.s = r.NewStream(b.lookahead)
		}
	default:
		bs.s = r.NewStream(b.lookahead)
	}
	bs.batch = b.batch
	if bs.s != nil {
		bs.s.Batch(b.batch)
	}
	return bs
}

// op makes one call on the block's stream (or takes its leader's output
// for it) and returns the chunks it released.
func (bs *blockStream) op(kind uint8, text string, lookahead int) []redact.Chunk {
	if l := bs.fol; l != nil {
		if e, ok := l.entry(bs.pos, kind, text); ok {
			bs.pos++
			bs.cuts += e.cuts
			bs.hist = append(bs.hist, streamOp{kind: kind, text: text})
			bs.histBytes += len(text)
			if bs.histBytes > maxFollowBytes && kind != opFlush {
				bs.own(lookahead)
			}
			return e.out
		}
		bs.own(lookahead)
	}
	before := bs.s.Cuts()
	var out []redact.Chunk
	switch kind {
	case opPush:
		out = bs.s.Push(text)
	case opFlush:
		out = bs.s.Flush()
	case opCut:
		out = bs.s.Cut()
	case opRelease:
		out = bs.s.Release()
	case opReleaseNow:
		out = bs.s.ReleaseNow()
	}
	if bs.lead {
		bs.logOp(streamOp{kind: kind, text: text, out: out, cuts: bs.s.Cuts() - before})
	}
	return out
}

// own ends following: the block's own Stream is given everything the
// block was given so far (its output is already known), and used from now
// on.
func (bs *blockStream) own(lookahead int) {
	s := bs.red.NewStream(lookahead)
	s.Batch(bs.batch)
	for _, o := range bs.hist {
		switch o.kind {
		case opPush:
			s.Push(o.text)
		case opFlush:
			s.Flush()
		case opCut:
			s.Cut()
		case opRelease:
			s.Release()
		case opReleaseNow:
			s.ReleaseNow()
		}
	}
	bs.s, bs.fol, bs.hist, bs.histBytes = s, nil, nil, 0
}

// entry is the leader's op number pos when it is the same call.
func (bs *blockStream) entry(pos int, kind uint8, text string) (streamOp, bool) {
	i := pos - bs.logStart
	if i < 0 || i >= len(bs.log) {
		return streamOp{}, false
	}
	e := bs.log[i]
	if e.kind != kind || kind == opPush && e.text != text {
		return streamOp{}, false
	}
	return e, true
}

// logOp adds a leader's op to its log, dropping the oldest entries past
// the bounds.
func (bs *blockStream) logOp(o streamOp) {
	bs.log = append(bs.log, o)
	bs.logBytes += len(o.text)
	drop := 0
	for len(bs.log)-drop > maxLeaderLog || bs.logBytes > maxLeaderBytes && drop < len(bs.log)-1 {
		bs.logBytes -= len(bs.log[drop].text)
		drop++
	}
	if drop > 0 {
		n := copy(bs.log, bs.log[drop:])
		clear(bs.log[n:])
		bs.log = bs.log[:n]
		bs.logStart += drop
	}
}

// cutsSoFar is Stream.Cuts of the block's stream, own or followed.
func (bs *blockStream) cutsSoFar() int {
	if bs.s != nil {
		return bs.s.Cuts()
	}
	return bs.cuts
}
