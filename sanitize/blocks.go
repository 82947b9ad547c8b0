package sanitize

import (
	"sort"
	"strings"

	"github.com/evcap/evcap/envelope"
	"github.com/evcap/evcap/event"
	"github.com/evcap/evcap/providers"
	"github.com/evcap/evcap/redact"
	"github.com/evcap/evcap/render/legacy"
	"github.com/tidwall/gjson"
)

// A block is the run of streamed deltas that together make one piece of
// text: a block of the provider's native stream, as its descriptor's
// Deltas tracker names it (native.go), a normalized text or thinking
// block, or a run of legacy [CONTENT_DELTA]/[THINKING_DELTA] markers. Each block gets its own
// redact.Stream, so a secret split across deltas is replaced in every one.
//
// The same text split the same way gives the same chunks whichever stage
// it is seen at, so the native deltas, the normalized deltas and the
// legacy markers derived from them are redacted alike.

// hole is the delta of one held record, waiting for its block's stream.
type hole struct {
	key     string
	path    []string // where the delta sits in the item's body
	origLen int      // length of the delta before redaction
	done    bool
	chunk   redact.Chunk
	// line marks a text line (stderr, a non-JSON stdout line) fed to its
	// stream's block with its newline, so that a secret spanning lines (a
	// private key block) is found; its chunk is the line's new text.
	line bool
}

type blockStream struct {
	s     *redact.Stream // nil while the block follows a native one (follow.go)
	holes []*hole
	red   *redact.Redactor
	batch int // the Stream's Batch
	// A native block logs its calls for blocks that may follow it.
	lead               bool
	log                []streamOp
	logStart, logBytes int
	// A block that follows one: the leader, its next op there, and the
	// calls made so far (for its own Stream, should it need one).
	fol             *blockStream
	pos             int
	hist            []streamOp
	histBytes, cuts int
}

// blocks holds the open streams of a capture.
type blocks struct {
	r         func() *redact.Redactor
	lookahead int
	open      map[string]*blockStream
	// leaders are the native blocks started last, newest last, which
	// normalized and legacy blocks may follow (follow.go), when follow
	// is set (Sanitize; a LineRedactor has native blocks only).
	follow  bool
	leaders []*blockStream
	// batch is the streams' redact.Stream.Batch: a stream looks at its
	// held text once per batch bytes instead of once per delta (Sanitize
	// always; a LineRedactor when LineOptions.Batch is set); 0 looks at
	// every delta.
	batch int
}

func newBlocks(r func() *redact.Redactor, lookahead int) *blocks {
	return &blocks{r: r, lookahead: lookahead, open: map[string]*blockStream{}}
}

// observer says which records carry a delta and which end blocks (see
// observe). It keeps the providers' Deltas trackers, which read the
// native lines in order; it shares nothing with blocks, so Sanitize runs
// it in the goroutine that reads records, ahead of the one that feeds the
// streams.
type observer struct {
	// deltas holds the providers' trackers, one per provider name, made
	// at its first native line.
	deltas providers.CaptureDeltas
	// The last block key made (blockKey).
	keyName, keyBlock, key string
}

func newObserver() *observer { return &observer{} }

// push adds a delta to its block and fills the holes of every delta the
// stream released.
func (b *blocks) push(h *hole, delta string) {
	bs := b.open[h.key]
	if bs == nil {
		bs = b.newBlockStream(h.key, delta)
		b.open[h.key] = bs
	}
	bs.holes = append(bs.holes, h)
	bs.fill(bs.op(opPush, delta, b.lookahead))
}

func (bs *blockStream) fill(chunks []redact.Chunk) {
	hs := bs.holes[:len(chunks)]
	for i, c := range chunks {
		hs[i].chunk, hs[i].done = c, true
		if hs[i].line {
			lineChunk(hs[i])
		}
	}
	if len(hs) > 0 && !hs[0].line {
		spread(hs)
	}
	if len(chunks) == len(bs.holes) {
		// Every hole filled (the usual case): the array is kept for the
		// next ones, so push does not make a new one each time.
		clear(bs.holes)
		bs.holes = bs.holes[:0]
		return
	}
	bs.holes = bs.holes[len(chunks):]
}

// lineChunk turns a text line's chunk back into the line: its newline
// dropped, and a line whose every byte was part of a secret (the body of a
// private key block) replaced by the token of the secret's rule.
func lineChunk(h *hole) {
	t := strings.TrimSuffix(h.chunk.Text, "\n")
	if t == "" && h.origLen > 1 && len(h.chunk.Findings) > 0 {
		t = "[REDACTED:" + h.chunk.Findings[0].Rule + "]"
	}
	h.chunk.Text = t
}

// releaseHead asks a batching block whose delta heads the waiting records
// to release what it can, once more than batchHeld (at most maxHeld)
// bytes of records wait: a block whose end comes late (or never) would
// otherwise keep them until its batch filled. It reports whether the
// head's delta is released. now makes the stream look even when it
// looked at its long held text without result lately (redact.Stream.
// ReleaseNow): a caller about to cut the block asks that, so that the cut
// never replaces what a look would have released.
func (b *blocks) releaseHead(h *hole, held, maxHeld int, now bool) bool {
	if b.batch <= 0 || held <= min(batchHeld, maxHeld) {
		return false
	}
	if bs := b.open[h.key]; bs != nil {
		op := opRelease
		if now {
			op = opReleaseNow
		}
		bs.fill(bs.op(op, "", b.lookahead)) // see redact.Stream.Release
	}
	return h.done
}

// releaseAll releases what every block holding deltas can release now.
// The blocks share nothing, so the order they go in changes nothing.
func (b *blocks) releaseAll() {
	for _, bs := range b.open {
		if len(bs.holes) > 0 {
			bs.fill(bs.op(opRelease, "", b.lookahead))
		}
	}
}

// cut releases every delta of the block at key without ending it (see
// redact.Stream.Cut) and reports whether the stream redacted a tail that
// could have started a secret.
func (b *blocks) cut(key string) bool {
	bs := b.open[key]
	if bs == nil {
		return false
	}
	before := bs.cutsSoFar()
	bs.fill(bs.op(opCut, "", b.lookahead))
	return bs.cutsSoFar() > before
}

// spread keeps every delta that had text non-empty: redact puts the whole
// token in the delta where a secret starts and empties the deltas the
// secret covered after it, which would make normalizers drop those deltas
// (one event fewer each). The last bytes of the token move into the
// emptied deltas, one each, so the reassembled text is unchanged.
func spread(hs []*hole) {
	for i := 0; i < len(hs); i++ {
		j := i + 1
		for j < len(hs) && hs[j].chunk.Text == "" && hs[j].origLen > 0 && len(hs[j].chunk.Findings) > 0 {
			j++
		}
		n := j - i - 1
		if n == 0 {
			continue
		}
		t := hs[i].chunk.Text
		if tl := tokenLen(t); tl > n {
			tail := t[len(t)-n:]
			hs[i].chunk.Text = t[:len(t)-n]
			for m := range n {
				hs[i+1+m].chunk.Text = tail[m : m+1]
			}
		}
		i = j - 1
	}
}

// tokenLen is the length of the replacement token t ends with, or 0.
func tokenLen(t string) int {
	var open string
	switch {
	case strings.HasSuffix(t, "]"):
		open = "["
	case strings.HasSuffix(t, ">"):
		open = "<"
	default:
		return 0
	}
	k := strings.LastIndex(t, open)
	if k < 0 {
		return 0
	}
	tok := t[k:]
	if strings.HasPrefix(tok, "[REDACTED:") || strings.HasPrefix(tok, "[BINARY:") || strings.HasPrefix(tok, "[TRUNCATED:") ||
		tok == redact.PlaceholderHome || tok == redact.PlaceholderProject || tok == redact.PlaceholderTemp {
		return len(tok)
	}
	return 0
}

// flush ends every open block whose key starts with prefix.
func (b *blocks) flush(prefix string) {
	keys := make([]string, 0, len(b.open))
	for k := range b.open {
		if strings.HasPrefix(k, prefix) {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		bs := b.open[k]
		bs.fill(bs.op(opFlush, "", b.lookahead))
		delete(b.open, k)
	}
}

// delta is what observe found in one record: a delta to push (key, path,
// text), blocks to end before it (flush prefixes), or both.
type delta struct {
	key    string
	path   []string
	text   string
	ends   []string
	isDelt bool
}

// The ends and paths observe returns, shared: nobody writes to them.
var (
	normEnds   = []string{"norm|"}
	legacyEnds = []string{"legacy|"}
	textPath   = []string{"text"}
)

// legacyKey is the block key of a legacy delta marker.
func legacyKey(marker string) string {
	switch marker { // the usual two without a concatenation
	case legacy.ContentDelta:
		return "legacy|" + legacy.ContentDelta
	case legacy.ThinkingDelta:
		return "legacy|" + legacy.ThinkingDelta
	}
	return "legacy|" + marker
}

// observe classifies a record's body for block tracking. kind tells how
// the body was taken from the payload.
func (b *observer) observe(prov string, stage envelope.Stage, kind payloadKind, marker string, body []byte, valid bool) delta {
	switch stage {
	case envelope.StageNativeIn:
		if kind != kindJSON && kind != kindSSE {
			return delta{}
		}
		// A JSON line the line redactor walked is valid, and so is an SSE
		// frame's data (split checks it); a capture's JSON payload is
		// checked by the tracker.
		return b.native(prov, body, valid || kind == kindSSE)
	case envelope.StageNormalizedOut:
		if kind != kindJSON {
			return delta{}
		}
		// Read in place (gjson.GetManyBytes would copy every value); the
		// text kept is copied.
		b := event.ReadBlock(bytesString(body))
		switch {
		case b.EndsAll:
			return delta{ends: normEnds}
		case b.Key == "":
			return delta{}
		}
		key := "norm|" + b.Key
		switch b.Phase {
		case event.PhaseDelta:
			if b.HasText {
				return delta{key: key, path: textPath, text: strings.Clone(b.Text), isDelt: true}
			}
		case event.PhaseCompleted:
			return delta{ends: []string{key}}
		}
	case envelope.StageLegacyOut:
		switch {
		case marker == legacy.ContentDelta || marker == legacy.ThinkingDelta:
			if kind == kindLegacyJSON {
				v := gjson.Parse(bytesString(body))
				if v.Type == gjson.String {
					return delta{key: legacyKey(marker), path: []string{}, text: strings.Clone(v.String()), isDelt: true}
				}
			}
		case legacy.EndsBlocks(marker):
			return delta{ends: legacyEnds}
		}
	}
	return delta{}
}
