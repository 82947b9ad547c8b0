package redact

import (
	"bytes"
	"strings"
)

// DefaultLookahead is the context a Stream made with NewStream(0) keeps:
// the last bytes of released text, which rules that look before a value
// ("password=") see when the value arrives.
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

// Stream redacts the deltas of one block as they arrive, holding back only
// what could still be part of a secret.
//
// After each Push, the deltas that end before the hold point are released
// at once (a stream holding 512 bytes or more that it could not release
// looks again less often, see backoff). The hold point is the earliest
// of: the start of a secret found so far that reaches the end of the text
// (it may still grow), the start of a literal that begins a secret
// ("sk-ant-", "ghp_", "AKIA", "eyJ", "-----BEGIN", a machine path, or a
// prefix of one of them) in the trailing token, the start of a secret
// that some rule would find if the text went on with random key
// characters (a value after "password=" that is still too short), and the
// start of a trailing base64 run long enough to be decoded, however far
// back. Text whose tail starts no secret is released with its delta.
//
// Released text is final: the bytes of a secret are replaced in every delta
// it touches, as with Chunks, and Push then Flush gives what Chunks gives
// for the same deltas. The last Lookahead bytes of released text stay as
// context, so rules that look at what comes before a value still work after
// their prefix was released.
//
// Memory bound: the held deltas plus the context: about Lookahead + the
// longest delta + the longest secret that is still open (a PEM private key
// block holds the stream until its END line, Cut or Flush).
type Stream struct {
	r         *Redactor
	lookahead int
	ctx       []byte // the last lookahead bytes of released text
	held      []string
	heldLen   int
	// carry is the rest of a secret whose start (and token) went out with
	// the deltas already released; its bytes lead the held text.
	carry     int
	carryRule string
	// batch is how many bytes Push holds before it looks for what it can
	// release (see Batch).
	batch int
	// open is the rule of a secret cut by Cut before it ended: the text
	// that continues it is replaced until the secret's shape ends.
	open string
	// cuts counts Cut calls that redacted a possible secret.
	cuts int
	// buf is the reused window: the context and the held deltas; probe
	// is holdPoint's reused text for its probes.
	buf   []byte
	probe []byte
	// hits and hitsB are release's reused keyword hits of the scanned
	// window (and scanHits' scratch).
	hits, hitsB []kwHit
	// idle is the held length at the last look, when that look released
	// nothing and the held text was backoffFrom bytes or more (0
	// otherwise); see backoff. ended says a delta since that look holds a
	// byte that ends a token, and endedOff that a look made for such a
	// byte released nothing either, so that another one does not count.
	idle     int
	ended    bool
	endedOff bool
	// stale says the last look released nothing and no delta came since.
	stale bool
	// looks counts the looks made (tests).
	looks int
}

// backoff: a look scans all the held text again, so a stream that holds a
// long text it cannot release (a base64 run, arriving a few bytes a delta,
// is one secret-shaped token to its end) would scan it once per delta:
// quadratic in its length (a 240 KB run in 60-byte deltas took 15 s, and
// record, looking at every delta, fell behind its agent). So a look that
// released nothing is not made again before a delta comes (the same text
// gives the same answer), and once a look of backoffFrom or more held
// bytes released nothing, Push and Release look again only when the held
// text has grown by half, or when a delta brings a byte that ends a token
// (a space, a quote, a newline: what ends a run of key bytes, and so what
// a held secret's end looks like) unless such a look released nothing
// either. Flush, Cut and ReleaseNow always look. The text scanned per
// block is then a small multiple of its length. What comes out is the
// same (a later look finds what earlier ones would have, see Batch);
// holds shorter than backoffFrom (a key, a password, a JWT's first part)
// are looked at every delta as before.
const backoffFrom = 512

// streamOverlap is how much released context a Stream scans again before
// new text: the reach of a rule's lead-in ("password=", "Authorization:
// Bearer ", an AWS key id before its secret) in front of a value that
// arrives later. A secret whose own bytes may still grow is never in the
// context: holdPoint holds it from its start. TestChunksSplitFakeSecrets
// checks every rule with a 64-byte lookahead.
const streamOverlap = 256

// scanFrom is where a Stream's scan of w starts when w[base:] is new: at
// most streamOverlap bytes back, moved further back to the start of the
// word it would cut, so that word boundaries are
// seen as in the whole text.
func scanFrom(w []byte, base int) int {
	from := max(0, base-streamOverlap)
	for from > 0 && isKeyByte(w[from-1]) {
		from--
	}
	return from
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
	s.stale = false
	if s.idle > 0 && !s.ended && !s.endedOff && endsToken(delta) {
		s.ended = true
	}
	if s.heldLen < s.batch {
		return nil
	}
	return s.release(false, false, false)
}

// endsToken reports whether d holds a byte that is not a key byte.
func endsToken(d string) bool {
	for i := 0; i < len(d); i++ {
		if !isKeyByte(d[i]) {
			return true
		}
	}
	return false
}

// Batch makes Push hold deltas without looking at them until at least n
// bytes are held (n ≤ 0: every Push looks, the default). Release looks
// sooner. A caller that does not need each delta at once (sanitize,
// reading a finished capture) saves most of the work per delta: every
// look scans the held text again with streamOverlap bytes of context and
// probes the tail for a secret that could still grow, which on short
// deltas costs far more than the delta. What comes out is the same,
// only later: the hold point keeps back every delta that could still
// become part of a secret, so a look after more deltas finds the spans
// that looks after each would have (Push then Flush gives Chunks' result
// either way). Where the hold point's probes would have missed a secret
// growing across deltas, the later look sees it whole.
func (s *Stream) Batch(n int) { s.batch = n }

// Release returns the held deltas that can be released now, as Push does
// after adding a delta; with Batch, a caller uses it when it cannot wait
// for more (too many records held behind the oldest delta). Like Push, it
// does not look again at a long held text that a look found nothing to
// release in until enough has arrived (see backoff).
func (s *Stream) Release() []Chunk {
	return s.release(false, false, false)
}

// ReleaseNow is Release that always looks: a caller about to Cut calls it
// first, so that a cut never replaces text a look would have released.
func (s *Stream) ReleaseNow() []Chunk {
	return s.release(false, false, true)
}

// Flush ends the block and returns every delta still held.
func (s *Stream) Flush() []Chunk {
	return s.release(true, false, true)
}

// Cut releases every delta still held without ending the block, for a
// caller that cannot hold more (sanitize's MaxHeld). What is held back is
// held because it could be the start of a secret: it is replaced as one
// (a secret still open is replaced to the end of what arrived), and the
// text that continues it in later deltas is replaced too, until the
// secret's shape ends (the END line of a private key block; otherwise the
// first byte that cannot be part of a key). So no piece of a secret split
// at a cut is released, at the price of redacting a little non-secret text
// when the held tail was not one.
func (s *Stream) Cut() []Chunk {
	return s.release(true, true, true)
}

// Cuts reports how many Cut calls redacted a tail that could have been
// the start of a secret.
func (s *Stream) Cuts() int { return s.cuts }

// Held reports how many deltas and bytes are waiting.
func (s *Stream) Held() (deltas, bytes int) { return len(s.held), s.heldLen }

func (s *Stream) release(all, cut, force bool) []Chunk {
	if len(s.held) == 0 {
		return nil
	}
	if !force && s.stale {
		return nil // see backoff
	}
	byEnd := false
	if !force && s.idle > 0 {
		byEnd = s.ended && !s.endedOff
		if !byEnd && s.heldLen < s.idle+s.idle/2 {
			return nil // see backoff
		}
	}
	s.looks++
	w := append(s.buf[:0], s.ctx...)
	for _, d := range s.held {
		w = append(w, d...)
	}
	s.buf = w
	base := len(s.ctx)
	// Only the held text is new: the context before it was scanned when it
	// arrived, so it is scanned again only as far back as a match that
	// reaches into the held text can start (scanFrom).
	from := scanFrom(w, base)
	// One keyword scan of w[from:] serves its spans and holdPoint's look
	// at the tail, which lies in it (within).
	kws := s.r.keywords
	scanned := w[from:]
	var spans []span
	var tailFound *bitset
	switch {
	case len(scanned) < s.r.minLen:
	case len(scanned) > maxHitsWindow:
		// A long window (a long text at once) is scanned without its
		// hits, which would be held all at once; holdPoint scans the
		// tail itself.
		spans = s.r.findSpans(scanned)
	default:
		s.hits = kws.scanHits(scanned, s.hits[:0], &s.hitsB)
		found := kws.within(scanned, s.hits, 0)
		spans = s.r.findSpansFound(scanned, &found, 0, nil)
		if a := len(w) - probeReach - from; a >= 0 {
			i := 0
			for i < len(s.hits) && s.hits[i].end <= a {
				i++
			}
			tf := kws.within(scanned, s.hits[i:], a)
			tailFound = &tf
		}
		if cap(s.hits) > maxKeptHits {
			s.hits, s.hitsB = nil, nil
		}
	}
	for i := range spans {
		spans[i].start += from
		spans[i].end += from
	}
	// Spans that lie wholly in the context were dealt with when that text
	// was released; the carried rest of a released secret is known already.
	var kept []span
	if s.carry > 0 {
		kept = append(kept, span{start: base, end: base + s.carry, rule: s.carryRule})
	}
	if s.open != "" {
		if n, done := continuation(w[base:], s.open); n > 0 || done {
			if n > 0 {
				kept = append(kept, span{start: base, end: base + n, rule: s.open, repl: redactedToken(s.open)})
			}
			if done {
				s.open = ""
			}
		}
	}
	for _, sp := range spans {
		if sp.end > base+s.carry {
			kept = append(kept, sp)
		}
	}
	kept = resolve(kept)
	n := len(s.held)
	hold, holdRule := len(w), ""
	if !all || cut {
		hold, holdRule = s.r.holdPoint(w, base, kept, &s.probe, tailFound)
	}
	if !all {
		n = 0
		end := base
		for _, d := range s.held {
			end += len(d)
			if end > hold {
				break
			}
			n++
		}
	}
	if cut && hold < len(w) {
		// Replace the tail that could start a secret, and what continues it.
		covered := false
		for _, sp := range kept {
			if sp.start <= hold && sp.end >= len(w) {
				covered = true
				if s.open == "" {
					s.open = sp.rule
				}
			}
		}
		if !covered {
			var out []span
			for _, sp := range kept {
				if sp.end <= hold {
					out = append(out, sp)
				} else if sp.start < hold {
					sp.end = hold
					out = append(out, sp)
				}
			}
			kept = append(out, span{start: hold, end: len(w), rule: holdRule, repl: redactedToken(holdRule)})
			s.open = holdRule
		}
		s.cuts++
	}
	if n == 0 {
		s.ended, s.stale = false, !all
		if s.heldLen >= backoffFrom {
			s.idle = s.heldLen
			s.endedOff = s.endedOff || byEnd
		} else {
			s.idle, s.endedOff = 0, false
		}
		return nil
	}
	s.idle, s.ended, s.endedOff, s.stale = 0, false, false, false
	done := mapSpans(s.held[:n], kept, base)
	released := 0
	for _, d := range s.held[:n] {
		released += len(d)
	}
	// The context and the released deltas lead w.
	end := base + released
	s.ctx = append(s.ctx[:0], w[max(0, end-s.lookahead):end]...)
	k := copy(s.held, s.held[n:])
	clear(s.held[k:])
	s.held = s.held[:k]
	s.heldLen -= released
	s.carry, s.carryRule = 0, ""
	if !all {
		for _, sp := range kept {
			if sp.start < end && end < sp.end {
				s.carry, s.carryRule = sp.end-end, sp.rule
			}
		}
	}
	if all && !cut {
		s.open = ""
	}
	return done
}

// continuation measures the text at the start of t that continues a
// secret of rule cut off before it ended, and whether it ended in t.
func continuation(t []byte, rule string) (int, bool) {
	if rule == RulePrivateKey || rule == "private-key" {
		end := []byte("-----END")
		k := bytes.Index(t, end)
		if k < 0 {
			return len(t), false
		}
		e := k + len(end)
		if j := bytes.Index(t[e:], []byte("-----")); j >= 0 {
			return e + j + 5, true
		}
		return len(t), false
	}
	i := 0
	for i < len(t) && isKeyByte(t[i]) {
		i++
	}
	return i, i < len(t)
}

// isKeyByte is what a key's characters are drawn from.
func isKeyByte(c byte) bool {
	return isAlnum(c) || c == '_' || c == '-' || c == '+' || c == '/' || c == '=' || c == '.' || c == '~'
}

// probes continue a text with random-looking key characters, to learn
// whether a rule would find a secret that starts in the text.
var probes = [][]byte{
	[]byte("Qz7xK2mP9vL4nR8tB3wY6cJ5hF1dG0sAQz7xK2mP9vL4nR8tB3wY6cJ5hF1dG0sAQz7xK2mP9vL4nR8tB3wY6cJ5hF1dG0sAQz7xK2mP9vL4nR8tB3wY6cJ5hF1dG0sA"),
	[]byte("QZ7XK2MP3VL4NR6TB3WY6CJ5HF2DG7SA"),
	[]byte("Qz7xK2mP9vL4nR8t@h"), // a password in a URL needs its "@"
}

// maxHitsWindow is the longest window release scans with scanHits.
const maxHitsWindow = 64 << 10

// probeReach is how far back from the end a probe looks for the start of
// a secret.
const probeReach = 256

// holdPoint returns where the text that could still be part of a secret
// starts in w (len(w) when nothing needs holding), and the rule it could
// belong to. Only positions at or after base matter. tailFound, when not
// nil, is what r.keywords.scan returns for the last probeReach bytes of w.
func (r *Redactor) holdPoint(w []byte, base int, spans []span, probe *[]byte, tailFound *bitset) (int, string) {
	hold, rule := len(w), ""
	set := func(p int, id string) {
		if p < hold {
			hold, rule = max(p, base), id
		}
	}
	for _, sp := range spans {
		if sp.end >= len(w) {
			set(sp.start, sp.rule)
		}
	}
	// The trailing token: a literal that starts a secret in it, or a
	// prefix of one at its end.
	ts := len(w)
	for ts > 0 && ts > len(w)-probeReach && isKeyByte(w[ts-1]) {
		ts--
	}
	if tok := w[ts:]; len(tok) > 0 {
		// Secrets start at a word boundary (the rules' left edge), so a
		// literal inside a word ("fine" ends with the "e" of "eyJ") starts
		// none.
		if p, id := r.holdIdx.litStart(w, ts, r.holdLits); p >= 0 {
			set(p, id)
		}
		if len(tok) >= minB64Run {
			// A base64 run is held from its start however long it is:
			// Chunks replaces a long one whole (blobSpans) and decodes a
			// shorter one (decodedSpans), so no part of it is final until
			// it ends. The token above stops probeReach bytes back; the
			// run may begin further back than that.
			p := ts
			if ts == len(w)-probeReach {
				for p > base && isB64URLByte(w[p-1]) {
					p--
				}
			}
			set(p, RuleBase64Blob)
		}
	}
	if !r.off.home {
		if k := winHomePrefix(w); k >= 0 {
			set(k, RulePathHome)
		}
	}
	// A private key header still arriving ("-----BEGIN RSA PRIVATE KE").
	if k := lastIndexBegin(w[max(0, len(w)-probeReach):]); k >= 0 {
		k += max(0, len(w)-probeReach)
		if bytes.IndexByte(w[k:], '\n') < 0 && bytes.Count(w[k:], []byte("-----")) < 2 && !r.off.privateKey {
			set(k, RulePrivateKey)
		}
	}
	if k := len(w) - 1; k >= base && w[k] == '%' || k >= 1 && w[k-1] == '%' {
		set(max(k-1, 0), "percent-encoded")
	}
	// Secrets a rule would find if the text went on.
	tail := max(0, len(w)-probeReach)
	// A probe can only complete a rule whose keyword the tail holds (the
	// probes hold none), so a tail without one needs no probe.
	if len(w) > base {
		t := w[tail:]
		k := r.keywords
		var found bitset
		if tailFound != nil && len(t) == probeReach {
			found = *tailFound
		} else {
			found = k.scan(t)
		}
		if r.anyRuleKeywordIn(t, &found) {
			// The keywords of the tail and a probe are the tail's and
			// those that end in the probe, which start in the tail's
			// last maxLen-1 bytes at the earliest: the tail is scanned
			// once, not once per probe.
			seam := max(0, len(t)-(k.maxLen-1))
			for _, pr := range probes {
				pt := append(append((*probe)[:0], t...), pr...)
				*probe = pt
				if len(pt) < r.minLen {
					continue
				}
				f := k.scan(pt[seam:])
				f.or(&found)
				for _, sp := range r.findSpansFound(pt, &f, 0, nil) {
					if sp.start < len(w)-tail && sp.end > len(w)-tail {
						set(tail+sp.start, sp.rule)
					}
				}
			}
		}
	}
	return hold, rule
}

// lastIndexBegin is bytes.LastIndex(b, "-----BEGIN"), with the common
// answer (none) from the faster forward search.
func lastIndexBegin(b []byte) int {
	begin := []byte("-----BEGIN")
	if !bytes.Contains(b, begin) {
		return -1
	}
	return bytes.LastIndex(b, begin)
}

// holdIndex finds, in one pass, where a literal that begins a secret
// starts in the trailing token of a stream's text: the last occurrence of
// each literal (at a word boundary), or a prefix of one at the token's
// end. Before it, holdPoint tried each of the few hundred literals (most
// from the upstream rules) with its own pass over the token, on every
// delta.
type holdIndex struct {
	// occur finds which literals the token holds: bit i%holdBits for
	// literal i, so a set bit means "maybe" and the literals under it are
	// checked exactly.
	occur *keywordSet
	// prefixes maps the ASCII-folded proper prefixes of the literals (of
	// at least minPrefix bytes) to the literals that have them, in order.
	prefixes  map[string][]int
	maxPrefix int
	// slow are the literals that ignore case and are not ASCII, which
	// bytes.EqualFold may match in ways ASCII folding does not.
	slow []int
}

const holdBits = nWords * 64

func newHoldIndex(lits []holdLit) holdIndex {
	h := holdIndex{prefixes: map[string][]int{}}
	var kws []keyword
	for i, hl := range lits {
		if hl.fold && !isASCII(hl.text) {
			h.slow = append(h.slow, i)
			continue
		}
		kws = append(kws, keyword{text: hl.text, fold: hl.fold, bit: bitOf(i % holdBits)})
		for l := max(hl.minPrefix, 1); l < len(hl.text); l++ {
			k := string(appendFoldedBytes(nil, hl.text[:l]))
			if ids := h.prefixes[k]; len(ids) == 0 || ids[len(ids)-1] != i {
				h.prefixes[k] = append(ids, i)
			}
			h.maxPrefix = max(h.maxPrefix, l)
		}
	}
	h.occur = newKeywordSet(kws)
	return h
}

func isASCII(b []byte) bool {
	for _, c := range b {
		if c >= 0x80 {
			return false
		}
	}
	return true
}

func appendFoldedBytes(dst, b []byte) []byte {
	for _, c := range b {
		dst = append(dst, foldByte(c))
	}
	return dst
}

// litStart returns the earliest start, in w, of a literal of lits that
// begins a secret in the trailing token w[ts:] (its last occurrence there,
// at a word boundary), or of a prefix of one that ends w, and the rule of
// the first such literal; -1 when there is none. It gives what trying the
// literals in order one by one gives.
func (h *holdIndex) litStart(w []byte, ts int, lits []holdLit) (int, string) {
	tok := w[ts:]
	best, bestLit := -1, -1
	consider := func(p, lit int) {
		// Earliest position; at the same position the earlier literal, and
		// for one literal its occurrence before its prefix.
		if best < 0 || p < best || p == best && lit < bestLit {
			best, bestLit = p, lit
		}
	}
	found := h.occur.scan(tok)
	if !found.isZero() {
		for i := range lits {
			if !found.has(i % holdBits) {
				continue
			}
			if p := lastIndexLit(tok, lits[i]); p >= 0 && leftBoundary(w, ts+p) {
				consider(ts+p, i)
			}
		}
	}
	var buf [64]byte
	for l := min(h.maxPrefix, len(tok), len(buf)); l >= 1; l-- {
		ids := h.prefixes[string(appendFoldedBytes(buf[:0], tok[len(tok)-l:]))]
		if len(ids) == 0 || !leftBoundary(w, len(w)-l) {
			continue
		}
		matched := false
		for _, i := range ids {
			if equalLit(tok[len(tok)-l:], lits[i].text[:l], lits[i].fold) {
				consider(len(w)-l, i)
				matched = true
				break
			}
		}
		if matched {
			break
		}
	}
	// Literals that fold beyond ASCII are tried one by one, as before.
	for _, i := range h.slow {
		hl := lits[i]
		if p := lastIndexLit(tok, hl); p >= 0 && leftBoundary(w, ts+p) {
			consider(ts+p, i)
		}
		for l := min(len(hl.text)-1, len(tok)); l >= hl.minPrefix; l-- {
			if equalLit(tok[len(tok)-l:], hl.text[:l], hl.fold) && leftBoundary(w, len(w)-l) {
				consider(len(w)-l, i)
				break
			}
		}
	}
	if best < 0 {
		return -1, ""
	}
	return best, lits[bestLit].rule
}

// holdLit is a literal that begins a secret, for holdPoint.
type holdLit struct {
	text      []byte
	fold      bool
	minPrefix int
	rule      string
}

func equalLit(a, b []byte, fold bool) bool {
	if fold {
		return bytes.EqualFold(a, b)
	}
	return bytes.Equal(a, b)
}

func lastIndexLit(s []byte, hl holdLit) int {
	if !hl.fold {
		return bytes.LastIndex(s, hl.text)
	}
	for i := len(s) - len(hl.text); i >= 0; i-- {
		if bytes.EqualFold(s[i:i+len(hl.text)], hl.text) {
			return i
		}
	}
	return -1
}

// buildHoldLits lists the literals that begin a secret: the keywords of
// rules whose whole match is the secret, the start of a private key block,
// the machine paths and home directory forms, and the literals of upstream
// rules that are not of the keyword-context shape.
func (r *Redactor) buildHoldLits() []holdLit {
	var out []holdLit
	for _, ru := range r.rules {
		switch {
		case ru.id == RulePrivateKey:
			out = append(out, holdLit{text: []byte("-----BEGIN"), minPrefix: 1, rule: ru.id})
		case !ru.upstream && ru.group == 0 && ru.scan == nil:
			for _, k := range ru.keywords {
				out = append(out, holdLit{text: k, fold: ru.fold, minPrefix: 1, rule: ru.id})
			}
		case ru.upstream && ru.anchorLits == nil: // not run anchored (anchorAt)
			for _, l := range ru.required {
				if len(l) >= 3 {
					out = append(out, holdLit{text: l, fold: true, minPrefix: 2, rule: ru.id})
				}
			}
		}
	}
	for _, n := range r.paths {
		out = append(out, holdLit{text: n.text, minPrefix: 1, rule: n.rule})
	}
	if !r.off.home {
		for _, h := range homeNeedles {
			out = append(out, holdLit{text: []byte(h), fold: true, minPrefix: 2, rule: RulePathHome})
		}
	}
	return out
}

// winHomePrefix returns where a Windows home directory may be starting at
// the end of w ("C", "C:", "C:\\Us", "C:/Users"), or -1.
func winHomePrefix(w []byte) int {
	for k := 1; k <= 10 && k <= len(w); k++ {
		p := len(w) - k
		if !isAlpha(w[p]) || p > 0 && isIdentByte(w[p-1]) {
			continue
		}
		rest := w[p+1:]
		if len(rest) == 0 {
			return p
		}
		if rest[0] != ':' {
			continue
		}
		rest = rest[1:]
		for len(rest) > 0 && (rest[0] == '\\' || rest[0] == '/') {
			rest = rest[1:]
		}
		if len(rest) <= 5 && hasPrefixFold([]byte("users"), string(rest)) {
			return p
		}
	}
	return -1
}

// anyRuleKeywordIn reports whether text holds a keyword of some rule;
// found is what r.keywords.scan(text) returns.
func (r *Redactor) anyRuleKeywordIn(text []byte, found *bitset) bool {
	nr := min(len(r.rules), maxFiltered)
	hit := false
	found.each(nr, func(int) { hit = true })
	if hit {
		return true
	}
	for _, ru := range r.rules[nr:] {
		if ru.mayMatch(text) {
			return true
		}
	}
	return false
}
