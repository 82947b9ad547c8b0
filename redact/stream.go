package redact

import "strings"

// DefaultLookahead is the lookahead of a Stream made with NewStream(0).
const DefaultLookahead = 1024

// Chunk is one redacted delta of a streamed block. Findings have an empty
// Pointer: the caller knows where the delta sits in its line.
type Chunk struct {
	Text     string
	Findings []Finding
}

// Chunks redacts the consecutive deltas of one content block (Claude
// text/thinking/input_json deltas, Gemini message deltas, opencode
// message.part.delta) as one text, so that a secret split across deltas is
// found, and maps each replacement back onto the deltas: the delta where a
// secret starts gets the replacement token in place of its piece, the other
// covered deltas lose their pieces. The number of deltas and the position of
// every untouched byte are kept, and the concatenation of the result equals
// Text applied to the concatenation of the input.
func (r *Redactor) Chunks(deltas []string) []Chunk {
	text := strings.Join(deltas, "")
	return mapSpans(deltas, r.findSpans([]byte(text)), 0)
}

// mapSpans cuts the replacements planned on the joined text (which starts
// base bytes before the first delta) back into per-delta results.
func mapSpans(deltas []string, spans []span, base int) []Chunk {
	out := make([]Chunk, len(deltas))
	pos := base
	si := 0
	for k, d := range deltas {
		a, b := pos, pos+len(d)
		pos = b
		for si < len(spans) && spans[si].end <= a {
			si++
		}
		if si == len(spans) || spans[si].start >= b {
			out[k].Text = d
			continue
		}
		var sb strings.Builder
		var l ledger
		last := a
		for j := si; j < len(spans) && spans[j].start < b; j++ {
			s := spans[j]
			ps, pe := max(s.start, a), min(s.end, b)
			sb.WriteString(d[last-a : ps-a])
			// The token goes where the secret starts; a span that began
			// before this stream's first byte puts it in the first piece.
			if s.start >= a || a == base {
				sb.WriteString(s.repl)
			}
			l.add(s.rule, "", pe-ps)
			last = pe
		}
		sb.WriteString(d[last-a:])
		out[k] = Chunk{Text: sb.String(), Findings: l.list}
	}
	return out
}

// Stream redacts the deltas of one block as they arrive, holding back
// deltas until no secret can still be growing across them.
//
// A delta is released once at least Lookahead bytes of text follow it and
// no secret found so far crosses its end. Released text is final: the
// bytes of a secret are replaced in every delta it touches, as with Chunks.
// The last Lookahead bytes of released text stay as context, so rules that
// look at what comes before a value ("password=", "Authorization: Bearer")
// still work after their prefix was released.
//
// Memory bound: the held deltas plus the context, that is about
// 2 × Lookahead + the longest delta + the longest secret that is still
// open (a PEM private key block holds the stream until its END line or
// Flush). A secret is recognised in time only if the shortest text that
// identifies it (for instance "sk-ant-" and twenty more bytes) fits in
// Lookahead bytes; all built-in rules need far less than the default.
type Stream struct {
	r         *Redactor
	lookahead int
	ctx       string
	held      []string
	heldLen   int
	// carry is the rest of a secret whose start (and token) went out with
	// the deltas already released; its bytes lead the held text.
	carry     int
	carryRule string
}

// NewStream starts the stream of one block. lookahead ≤ 0 means
// DefaultLookahead.
func (r *Redactor) NewStream(lookahead int) *Stream {
	if lookahead <= 0 {
		lookahead = DefaultLookahead
	}
	return &Stream{r: r, lookahead: lookahead}
}

// Push adds the next delta and returns the deltas that became final, in
// order (possibly none, possibly several).
func (s *Stream) Push(delta string) []Chunk {
	s.held = append(s.held, delta)
	s.heldLen += len(delta)
	return s.release(false)
}

// Flush ends the block and returns every delta still held.
func (s *Stream) Flush() []Chunk {
	return s.release(true)
}

// Held reports how many deltas and bytes are waiting.
func (s *Stream) Held() (deltas, bytes int) { return len(s.held), s.heldLen }

func (s *Stream) release(all bool) []Chunk {
	if len(s.held) == 0 {
		return nil
	}
	window := s.ctx + strings.Join(s.held, "")
	spans := s.r.findSpans([]byte(window))
	// Spans that lie wholly in the context were dealt with when that text
	// was released; the carried rest of a released secret is known already.
	base := len(s.ctx)
	var kept []span
	if s.carry > 0 {
		kept = append(kept, span{start: base, end: base + s.carry, rule: s.carryRule})
	}
	for _, sp := range spans {
		if sp.end > base+s.carry {
			kept = append(kept, sp)
		}
	}
	n := len(s.held)
	if !all {
		// A delta is final when enough text follows it and any secret that
		// crosses its end is complete too (followed by enough text).
		limit := len(window) - s.lookahead
		n = 0
		end := base
		for _, d := range s.held {
			end += len(d)
			if end > limit || crossesOpen(kept, end, limit) {
				break
			}
			n++
		}
	}
	if n == 0 {
		return nil
	}
	done := mapSpans(s.held[:n], kept, base)
	released := strings.Join(s.held[:n], "")
	ctx := s.ctx + released
	if len(ctx) > s.lookahead {
		ctx = ctx[len(ctx)-s.lookahead:]
	}
	s.ctx = strings.Clone(ctx)
	s.held = append(s.held[:0], s.held[n:]...)
	s.heldLen -= len(released)
	s.carry, s.carryRule = 0, ""
	if end := base + len(released); !all {
		for _, sp := range kept {
			if sp.start < end && end < sp.end {
				s.carry, s.carryRule = sp.end-end, sp.rule
			}
		}
	}
	return done
}

// crossesOpen reports a span that crosses at and may still grow.
func crossesOpen(spans []span, at, limit int) bool {
	for _, sp := range spans {
		if sp.start < at && at < sp.end && sp.end > limit {
			return true
		}
	}
	return false
}
