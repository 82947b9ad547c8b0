package sanitize

import (
	"strings"
	"unicode/utf8"

	"github.com/evcap/evcap/envelope"
	"github.com/evcap/evcap/internal/jsonwalk"
	"github.com/evcap/evcap/redact"
)

// LineOptions configure a LineRedactor.
type LineOptions struct {
	// Lookahead is how many bytes of released text each block's
	// redact.Stream keeps as context for the text after it; 0 means
	// redact.DefaultLookahead. It no longer delays anything.
	Lookahead int
	// MaxHeld bounds the bytes of lines held back; past it, the block
	// holding the oldest line is ended early. 0 means DefaultMaxHeld.
	MaxHeld int
	// Provider, when it names a provider the registry knows, is the
	// stream's provider (evcap record knows it once it has detected it):
	// only its descriptor's Deltas tracker reads the lines. Otherwise
	// every provider's tracker does (see Sanitize's blocks for records of
	// no known provider).
	Provider string
	// Batch lets each block's stream hold this many bytes of deltas
	// before it looks at them (redact.Stream.Batch), which saves most of
	// the redaction's work per delta when lines come faster than they are
	// redacted; 0 looks at every delta. A caller that sets it calls
	// Release whenever it has no more lines at hand (before it waits for
	// input), so that a line waits for a batch only while more lines are
	// already there to fill it. What is released is the same either way,
	// only when it comes out moves.
	Batch int
}

// RedactedLine is a line a LineRedactor released: the line redacted, and
// the ledger of what was replaced (pointers address the line when it is
// JSON; they are "" for text lines).
type RedactedLine struct {
	Line   []byte
	Ledger []envelope.Redaction
	// Stderr marks a line that came in through PushStderr.
	Stderr bool
	// CheckedJSON says Line is the line as pushed, and the redactor's walk
	// found it one valid JSON value (as gjson.ValidBytes would): a writer
	// that embeds JSON lines need not check it again.
	CheckedJSON bool
}

// maxStreamedLine is the longest text line fed to its stream's block; a
// longer one ends the block and is redacted on its own.
const maxStreamedLine = 64 << 10

// LineRedactor redacts the native lines of one agent stream as they
// arrive, with the same block rules as Sanitize: each streamed delta
// (Claude text, thinking and input_json deltas, Gemini assistant message
// deltas, opencode message.part.delta) goes through its block's
// redact.Stream, so a secret or a machine path split across deltas is
// replaced in every delta it touches, and the rest of each line through the
// redactor as one line. Text lines (stdout lines that are not JSON, and
// stderr lines given to PushStderr) form text blocks of their own, so a
// private key printed line by line is replaced in every line. It is what
// evcap record runs between the agent and the capture; Sanitize does the
// same per record.
//
// Lines come out in the order they went in. A delta line is released as
// soon as its tail can no longer be the start of a secret (see
// redact.Stream; most deltas come out of their own Push), or when its block
// ends (Claude content_block_stop or message_stop, a Gemini line that is
// not an assistant delta, an opencode part whose time.end is set or an idle
// session); a line that is not a delta waits only for the lines before it.
// Memory is bounded by the open blocks' streams plus the held lines, which
// MaxHeld caps: past it the block holding the oldest line is released in
// parts (EarlyFlushes) with redact.Stream.Cut, which replaces the held tail
// that could start a secret and what continues it, so no piece of a secret
// split there is released. Flush releases everything at the end of the
// stream.
//
// A LineRedactor is used by one goroutine. Lines are JSON when they start
// with { or [ and the redactor reads them as JSON (as evcap record stores
// them), text otherwise.
type LineRedactor struct {
	red     *redact.Redactor
	blocks  *blocks
	obs     *observer
	prov    string
	queue   fifo[*lineItem] // waiting (emit)
	spare   []*lineItem     // items emitted, for reuse
	held    int
	maxHeld int
	early   int
	partial int
	out     []RedactedLine
	jw      jsonwalk.Walker
	dw      deltaWalk
	pf      *prefetch // lines being redacted ahead (Prefetch)
	pfSpare *prefetch // the last one, emptied, for the next Prefetch
}

type lineItem struct {
	json   bool
	stderr bool
	body   []byte
	owned  bool // body is not the caller's slice
	ledger []envelope.Redaction
	hole   *hole
	hbuf   hole // where hole points, when it is set
	size   int
	// orig is the delta's text as pushed; deltaFound is set when the
	// line's redaction found something in it (so changed it).
	orig       string
	deltaFound bool
	// same: the line is JSON and its redaction changed nothing.
	same bool
}

// NewLineRedactor starts the redaction of one stream of native lines.
func NewLineRedactor(r *redact.Redactor, opts LineOptions) *LineRedactor {
	lr := &LineRedactor{red: r, maxHeld: opts.MaxHeld, obs: newObserver(), prov: opts.Provider}
	if lr.maxHeld <= 0 {
		lr.maxHeld = DefaultMaxHeld
	}
	lr.blocks = newBlocks(func() *redact.Redactor { return r }, opts.Lookahead)
	lr.blocks.batch = opts.Batch
	return lr
}

// Push takes the next stdout line (without its newline) and returns the
// lines that are now final, in order: possibly none, possibly several,
// possibly including this one. The returned slice and the lines in it stay
// valid until the next call; line itself may be reused by the caller as
// soon as Push returns.
//
// A line that is not JSON is text: it joins the stdout text block with its
// newline, so a secret that spans lines (a private key block printed
// line by line) is held until it ends and then replaced in every line.
func (lr *LineRedactor) Push(line []byte) []RedactedLine {
	return lr.push(line, false)
}

// PushStderr takes the next stderr line. Stderr lines are text and form
// their own block, as non-JSON stdout lines do; they keep their place in
// the order of all lines pushed, so a stderr line waits behind a held
// stdout line (and the other way round). Released stderr lines have
// RedactedLine.Stderr set.
func (lr *LineRedactor) PushStderr(line []byte) []RedactedLine {
	return lr.push(line, true)
}

func (lr *LineRedactor) push(line []byte, stderr bool) []RedactedLine {
	lr.out = lr.out[:0]
	it := lr.newItem()
	it.body, it.size, it.stderr = line, len(line)+64, stderr
	var d delta
	var findings []redact.Finding
	if !stderr && len(line) > 0 && (line[0] == '{' || line[0] == '[') {
		// The redactor validates as it walks: no second pass over a long
		// line to learn whether it is JSON.
		if out, f, err := lr.json(line); err == nil {
			it.json, it.body, findings = true, out, f
			// An unchanged line comes back as the same bytes.
			it.same = len(out) == len(line) && (len(out) == 0 || &out[0] == &line[0])
			d = lr.obs.observe(lr.prov, envelope.StageNativeIn, kindJSON, "", line, true)
		}
	}
	textKey := "text|stdout"
	if stderr {
		textKey = "text|stderr"
	}
	if !it.json {
		if len(line) <= maxStreamedLine {
			d = delta{key: textKey, text: string(line) + "\n", isDelt: true}
		} else {
			lr.blocks.flush(textKey)
			it.body, findings = lr.red.Text(line)
		}
	}
	for _, e := range d.ends {
		lr.blocks.flush(e)
	}
	it.owned = len(it.body) == 0 || len(line) == 0 || &it.body[0] != &line[0]
	var dptr string
	if d.isDelt {
		if len(findings) > 0 {
			dptr = pointer(d.path)
		}
		it.hbuf = hole{key: d.key, path: d.path, origLen: len(d.text), line: !it.json}
		it.hole = &it.hbuf
		it.orig = d.text
	}
	for _, f := range findings {
		if d.isDelt && f.Pointer == dptr {
			it.deltaFound = true
			continue // the stream's chunk replaces this string and has its own ledger
		}
		it.ledger = append(it.ledger, lr.entry(it.json, f.Rule, f.Pointer, f.Count, f.OriginalLength))
	}
	lr.queue.push(it)
	lr.held += it.size
	if d.isDelt {
		lr.blocks.push(it.hole, d.text)
	}
	lr.emit()
	// The lines waiting from before own their bodies already (this loop
	// made them): only this one, when it waits, may still be the
	// caller's slice.
	if w := lr.queue.waiting(); len(w) > 0 {
		if q := w[len(w)-1]; q == it && !q.owned {
			q.body, q.owned = append([]byte(nil), q.body...), true
		}
	}
	return lr.out
}

// Flush ends every open block and returns every line still held. The
// LineRedactor can take more lines afterwards.
func (lr *LineRedactor) Flush() []RedactedLine {
	lr.out = lr.out[:0]
	lr.blocks.flush("")
	lr.emit()
	return lr.out
}

// Release returns the lines that no later line can change any more: the
// deltas the blocks' streams hold only because their batch (LineOptions.
// Batch) is not full are looked at now, as Push would have without a
// batch. Lines held because their text could still start a secret stay
// held.
func (lr *LineRedactor) Release() []RedactedLine {
	lr.out = lr.out[:0]
	if lr.blocks.batch > 0 {
		lr.blocks.releaseAll()
		lr.emit()
	}
	return lr.out
}

// Held reports how many lines, and how many bytes of them, are waiting.
func (lr *LineRedactor) Held() (lines, bytes int) {
	for _, it := range lr.queue.waiting() {
		bytes += len(it.body)
	}
	return lr.queue.len(), bytes
}

// EarlyFlushes counts the times a block was released in parts because
// MaxHeld was reached. Such a release (redact.Stream.Cut) does not end the
// block: text held because it could start a secret is replaced as one, and
// what continues it in later lines is replaced too (PartialRedactions).
func (lr *LineRedactor) EarlyFlushes() int { return lr.early }

// PartialRedactions counts the early releases that replaced held text
// because it could have been the start of a secret; some of it may have
// been ordinary text.
func (lr *LineRedactor) PartialRedactions() int { return lr.partial }

func (lr *LineRedactor) entry(json bool, rule, ptr string, count, n int) envelope.Redaction {
	if !json {
		ptr = ""
	}
	return envelope.Redaction{Rule: rule, Pointer: ptr, Count: count, OriginalLength: n}
}

// emit moves the ready lines at the head of the queue to out.
func (lr *LineRedactor) emit() {
	// The queue's array is reused (fifo), and so are the items emitted:
	// what a RedactedLine holds (the line, the ledger) is not the item's
	// to reuse.
	defer lr.queue.compact()
	for lr.queue.len() > 0 {
		head := lr.queue.front()
		if head.hole != nil && !head.hole.done {
			if lr.blocks.releaseHead(head.hole, lr.held, lr.maxHeld, false) {
				continue
			}
			if lr.held <= lr.maxHeld {
				return
			}
			if lr.blocks.releaseHead(head.hole, lr.held, lr.maxHeld, true) {
				continue
			}
			lr.early++
			if lr.blocks.cut(head.hole.key) {
				lr.partial++
			}
		}
		lr.queue.pop()
		lr.held -= head.size
		lr.out = append(lr.out, lr.finish(head))
		if len(lr.spare) < maxSpareItems {
			*head = lineItem{}
			lr.spare = append(lr.spare, head)
		}
	}
}

// maxSpareItems bounds the emitted items a LineRedactor keeps for reuse
// (about 200 bytes each, emptied): enough for the lines a batch of
// deltas (LineOptions.Batch) holds back, a few hundred in a stream of
// short deltas, so that a stream's items are made once.
const maxSpareItems = 1024

// newItem is an empty item: one emitted before, or a new one.
func (lr *LineRedactor) newItem() *lineItem {
	if n := len(lr.spare); n > 0 {
		it := lr.spare[n-1]
		lr.spare[n-1] = nil
		lr.spare = lr.spare[:n-1]
		return it
	}
	return &lineItem{}
}

// finish puts the delta's redacted chunk in its place.
func (lr *LineRedactor) finish(it *lineItem) RedactedLine {
	h := it.hole
	if h == nil {
		return RedactedLine{Line: it.body, Ledger: it.ledger, Stderr: it.stderr, CheckedJSON: it.same}
	}
	for _, f := range h.chunk.Findings {
		it.ledger = append(it.ledger, lr.entry(it.json, f.Rule, pointer(h.path), f.Count, f.OriginalLength))
	}
	if h.line {
		if len(h.chunk.Findings) > 0 {
			it.body = []byte(h.chunk.Text)
		}
		return RedactedLine{Line: it.body, Ledger: it.ledger, Stderr: it.stderr}
	}
	if h.chunk.Text == it.orig && !it.deltaFound && utf8.ValidString(it.orig) && !strings.ContainsRune(it.orig, utf8.RuneError) {
		// The delta string is in the line as it came, and its chunk is
		// that text: the walk below would change nothing. (Text with
		// invalid UTF-8 or U+FFFD is walked: the tracker's decoding and
		// the walker's could differ there.)
		return RedactedLine{Line: it.body, Ledger: it.ledger, CheckedJSON: it.same}
	}
	lr.dw.path, lr.dw.text = h.path, h.chunk.Text
	same := it.same
	if out, changed, err := lr.jw.Walk(it.body, &lr.dw); err == nil && changed {
		it.body = append([]byte(nil), out...) // out is the walker's, and lines are returned in batches
		same = false
	}
	return RedactedLine{Line: it.body, Ledger: it.ledger, CheckedJSON: same}
}
