package redact

import (
	"bytes"
	"encoding/base64"
	"math/bits"
	"regexp"
	"slices"
	"strconv"
	"sync"
)

// A span is one planned replacement in a piece of decoded text.
type span struct {
	start, end int
	rule       string
	repl       string
	prio       int
}

// Tokens written by this package. Text inside them is never matched again,
// which is what makes redaction idempotent.
var tokenPrefixes = [][]byte{[]byte("[REDACTED:"), []byte("[BINARY:"), []byte("[TRUNCATED:")}

func redactedToken(rule string) string { return "[REDACTED:" + rule + "]" }

func binaryToken(mime string, n int) string {
	return "[BINARY:" + mime + ";" + strconv.Itoa(n) + " bytes]"
}

func truncatedToken(n int) string {
	return "[TRUNCATED:original " + strconv.Itoa(n) + " bytes]"
}

// protectedRanges returns the byte ranges of tokens this package wrote
// earlier (replacement tokens and path placeholders).
func (r *Redactor) protectedRanges(text []byte, out [][2]int) [][2]int {
	if bytes.IndexByte(text, '[') >= 0 {
		for _, p := range tokenPrefixes {
			for i := 0; ; {
				j := bytes.Index(text[i:], p)
				if j < 0 {
					break
				}
				s := i + j
				e := bytes.IndexByte(text[s:], ']')
				if e < 0 {
					break
				}
				out = append(out, [2]int{s, s + e + 1})
				i = s + e + 1
			}
		}
	}
	if bytes.IndexByte(text, '<') >= 0 {
		for _, p := range placeholders {
			for i := 0; ; {
				j := bytes.Index(text[i:], p)
				if j < 0 {
					break
				}
				out = append(out, [2]int{i + j, i + j + len(p)})
				i += j + len(p)
			}
		}
	}
	return out
}

func overlapsAny(s, e int, ranges [][2]int) bool {
	for _, p := range ranges {
		if s < p[1] && p[0] < e {
			return true
		}
	}
	return false
}

func inside(pos int, ranges [][2]int) bool {
	for _, p := range ranges {
		if pos >= p[0] && pos < p[1] {
			return true
		}
	}
	return false
}

// leftBoundary reports whether a token may start at s: the byte before is
// not an identifier byte, or it is the letter of a backslash escape such as
// "\n" in JSON text that was not decoded (a string inside a string).
func leftBoundary(text []byte, s int) bool {
	if s == 0 || !isIdentByte(text[s-1]) {
		return true
	}
	return s >= 2 && text[s-2] == '\\' && isAlpha(text[s-1])
}

func rightBoundary(text []byte, e int) bool {
	return e >= len(text) || !isIdentByte(text[e]) || text[e] == '\\'
}

// findSpans returns the non-overlapping replacements for one piece of text,
// sorted by start.
func (r *Redactor) findSpans(text []byte) []span {
	return r.findSpansDepth(text, 0)
}

const (
	// slashBit is set by the keyword set when the text holds an escaped
	// slash.
	slashBit = nWords*64 - 2
	pathsBit = nWords*64 - 1
	// maxFiltered is how many rules have a bit: rules from it on test
	// their keywords themselves.
	maxFiltered = nWords*64 - 2
)

// buildKeywords compiles the keywords of the first maxFiltered rules (bit
// i for rule i), the path needles (pathsBit) and the escaped slash
// (slashBit) into one keywordSet. When the bits left over after the rules
// are enough, each needle also gets one of its own (needleBase+k for
// needle k), so that pathSpans searches only the needles a string holds.
func (r *Redactor) buildKeywords() *keywordSet {
	var kws []keyword
	nr := min(len(r.rules), maxFiltered)
	for i, ru := range r.rules[:nr] {
		for _, k := range ru.keywords {
			kws = append(kws, keyword{text: k, fold: ru.fold, bit: bitOf(i)})
		}
	}
	r.needleBase = -1
	if nr+len(r.paths) <= maxFiltered {
		r.needleBase = nr
	}
	for k, n := range r.paths {
		bit := bitOf(pathsBit)
		if r.needleBase >= 0 {
			bit.set(r.needleBase + k)
		}
		kws = append(kws, keyword{text: n.text, bit: bit})
	}
	for _, h := range homeNeedles {
		kws = append(kws, keyword{text: []byte(h), fold: true, bit: bitOf(pathsBit)})
	}
	kws = append(kws, keyword{text: []byte(`\/`), bit: bitOf(slashBit)})
	r.kwLits = keywordLits(kws)
	return newKeywordSet(kws)
}

// findSpansDepth finds the spans of text and of its decoded views; depth
// counts the decodings that led to text.
func (r *Redactor) findSpansDepth(text []byte, depth int) []span {
	if len(text) < r.minLen {
		return nil
	}
	found := r.keywords.scan(text)
	return r.findSpansFound(text, &found, depth, nil)
}

// findSpansFound is findSpansDepth for a text whose keywords are known:
// found is what r.keywords.scan(text) returns (a JSON walk learns it
// from one scan of the whole line). The spans are appended to buf[:0],
// whose array the caller may give again once it is done with them.
func (r *Redactor) findSpansFound(text []byte, found *bitset, depth int, buf []span) []span {
	spans, _ := r.findSpansCut(text, found, depth, buf, 0, 0, nil)
	return spans
}

// findSpansAt is findSpansFound with the keyword hits of text (see
// litFinder; nil when there are none).
func (r *Redactor) findSpansAt(text []byte, found *bitset, buf []span, lits *litFinder) []span {
	spans, _ := r.findSpansCut(text, found, 0, buf, 0, 0, lits)
	return spans
}

// findSpansCut is findSpansFound that, when m1 < m2, leaves out the path
// spans that lie wholly in text[m1:m2] (and does not search there for
// them): a string about to be cut to a head and a tail (truncate) loses
// that part anyway, and a long tool output holds a path on every line.
// ok reports whether the spans it gives are, before m1 and from m2 on,
// exactly findSpansFound's, which holds when no span that starts in
// [m1, m2) ends after m2, no resolved span that starts before m1 ends
// after m2 (then the spans from m2 on are resolved as they would be with
// the left-out ones), and no two spans tie in resolve's order with
// different replacements (whose order an unstable sort picks). When ok
// is false the caller runs findSpansFound.
func (r *Redactor) findSpansCut(text []byte, found *bitset, depth int, buf []span, m1, m2 int, lits *litFinder) (_ []span, ok bool) {
	if len(text) < r.minLen {
		return nil, true
	}
	var prot [][2]int
	protDone := false
	protect := func() [][2]int {
		if !protDone {
			prot = r.protectedRanges(text, nil)
			protDone = true
		}
		return prot
	}
	spans := buf[:0]
	// Rules with a bit run when the text holds one of their keywords, in
	// priority order; the rest (past maxFiltered) test their keywords
	// themselves.
	nr := min(len(r.rules), maxFiltered)
	for w := 0; w < nWords && w*64 < nr; w++ {
		for x := found[w]; x != 0; x &= x - 1 {
			prio := w*64 + bits.TrailingZeros64(x)
			if prio >= nr {
				break
			}
			spans = r.ruleSpans(prio, text, protect, spans, lits)
		}
	}
	for prio := nr; prio < len(r.rules); prio++ {
		if r.rules[prio].mayMatch(text) {
			spans = r.ruleSpans(prio, text, protect, spans, nil)
		}
	}
	base := len(r.rules)
	if !r.off.binary {
		spans = r.dataURLSpans(text, protect, spans, base)
	}
	if !r.off.blob && len(text) >= r.blobMin {
		spans = r.blobSpans(text, protect, spans, base+1)
	}
	if found.has(pathsBit) {
		spans = r.pathSpans(text, found, protect, spans, base+2, m1, m2)
	}
	n := len(spans)
	spans = r.decodedSpans(text, depth, spans)
	if len(spans) > n {
		// A view's hit must not cut into a token written earlier.
		kept := spans[:n]
		for _, s := range spans[n:] {
			if !overlapsAny(s.start, s.end, protect()) {
				kept = append(kept, s)
			}
		}
		spans = kept
	}
	if m1 < m2 {
		for _, s := range spans {
			if s.start >= m1 && s.start < m2 && s.end > m2 {
				return spans, false
			}
		}
		if hasTie(spans) {
			return spans, false
		}
		spans = resolve(spans)
		for i := len(spans) - 1; i >= 0; i-- {
			if spans[i].start < m1 {
				if spans[i].end > m2 {
					return spans, false
				}
				break
			}
		}
		return spans, true
	}
	return resolve(spans), true
}

// hasTie reports whether two of spans compare equal in resolve's order
// (cmpSpan) but differ in rule or replacement.
func hasTie(spans []span) bool {
	if len(spans) < 2 {
		return false
	}
	cp := spanCopies.Get().(*[]span)
	defer func() {
		if cap(*cp) > maxKeptCopy {
			*cp = nil
		}
		spanCopies.Put(cp)
	}()
	s := append((*cp)[:0], spans...)
	*cp = s
	slices.SortFunc(s, cmpSpan)
	for i := 1; i < len(s); i++ {
		if cmpSpan(s[i-1], s[i]) == 0 && (s[i-1].rule != s[i].rule || s[i-1].repl != s[i].repl) {
			return true
		}
	}
	return false
}

// ruleSpans adds the matches of rule prio in text; lits, when not nil,
// finds the rule's literals in it.
func (r *Redactor) ruleSpans(prio int, text []byte, protect func() [][2]int, spans []span, lits *litFinder) []span {
	ru := r.rules[prio]
	if ru.scan != nil {
		for _, sp := range ru.scan(text) {
			p := protect()
			if overlapsAny(sp[0], sp[1], p) || r.allowed(text[sp[0]:sp[1]]) {
				continue
			}
			spans = append(spans, span{start: sp[0], end: sp[1], rule: ru.id, repl: redactedToken(ru.id), prio: prio})
		}
		return spans
	}
	ru.ready()
	if ru.anchored != nil && len(ru.anchorLive) == 0 {
		return spans // no match can start at its anchors (liveAnchors)
	}
	if !ru.hasRequiredIn(text, lits) {
		return spans
	}
	var matches [][]int
	if ru.anchored != nil {
		matches = ru.anchoredMatchesIn(text, ru.anchorLive, lits)
	} else if ru.atKeyword != nil && !hasFoldVariant(text) {
		matches = ru.keywordMatchesIn(text, lits)
	} else if ru.maxLen > 0 && len(text) > ru.chunk {
		matches = ru.windowedMatchesIn(text, lits)
	} else {
		matches = ru.re.FindAllSubmatchIndex(text, -1)
	}
	for _, m := range matches {
		var s, e int
		if ru.upstream {
			var ok bool
			if s, e, ok = ru.upstreamSecret(text, m); !ok {
				continue
			}
		} else {
			s, e = m[2*ru.group], m[2*ru.group+1]
		}
		if s < 0 || s == e {
			continue
		}
		if ru.leftEdge && !leftBoundary(text, s) || ru.rightEdge && !rightBoundary(text, e) {
			continue
		}
		if ru.mixed && !(hasDigit(text[s:e]) && (hasUpper(text[s:e]) || hasLower(text[s:e]))) {
			continue
		}
		if ru.accept != nil && !ru.accept(text, m) {
			continue
		}
		p := protect()
		if overlapsAny(s, e, p) || inside(m[0], p) || r.allowed(text[s:e]) {
			continue
		}
		spans = append(spans, span{start: s, end: e, rule: ru.id, repl: redactedToken(ru.id), prio: prio})
		if ru.extra != nil {
			if xs, xe, ok := ru.extra(text, [2]int{s, e}); ok && !overlapsAny(xs, xe, p) && !r.allowed(text[xs:xe]) && !r.disabled[ru.extraID] {
				spans = append(spans, span{start: xs, end: xe, rule: ru.extraID, repl: redactedToken(ru.extraID), prio: prio})
			}
		}
	}
	return spans
}

// resolve keeps, from left to right, the longest span at each start (the
// earlier rule on a tie) and drops spans that overlap a kept one.
func resolve(spans []span) []span {
	if len(spans) < 2 {
		return spans
	}
	// Spans of one rule come in order; often there is only one rule, and
	// the stages' spans are a few runs in order, merged as they are
	// resolved (resolveRuns).
	runs := 1
	for i := 1; i < len(spans) && runs <= maxMergedRuns; i++ {
		if cmpSpan(spans[i-1], spans[i]) > 0 {
			runs++
		}
	}
	if runs == 1 {
		return keepFirst(spans)
	}
	if len(spans) > 12 && runs <= maxMergedRuns {
		if out, ok := resolveRuns(spans); ok {
			return out
		}
	}
	slices.SortFunc(spans, cmpSpan)
	return keepFirst(spans)
}

// cmpSpan orders spans by start, then the longest first, then by
// priority.
func cmpSpan(a, b span) int {
	if a.start != b.start {
		return a.start - b.start
	}
	if a.end != b.end {
		return b.end - a.end
	}
	return a.prio - b.prio
}

// keepFirst resolves spans sorted by cmpSpan, in place.
func keepFirst(spans []span) []span {
	out := spans[:1]
	for _, s := range spans[1:] {
		if s.start >= out[len(out)-1].end {
			out = append(out, s)
		}
	}
	return out
}

// maxMergedRuns is the most runs in order resolveRuns merges.
const maxMergedRuns = 16

// resolveRuns is resolve for spans made of a few runs each in order: it
// merges the runs as it resolves them, instead of sorting (the tool
// output of a capture holds a hundred thousand paths, from two stages).
// It gives up (false) when two spans that differ compare equal, whose
// order the sort decides; spans is then left as it was. The result is
// written over spans.
func resolveRuns(spans []span) ([]span, bool) {
	// The spans are read from a copy and the result written over them.
	cp := spanCopies.Get().(*[]span)
	defer func() {
		if cap(*cp) > maxKeptCopy {
			*cp = nil
		}
		spanCopies.Put(cp)
	}()
	in := append((*cp)[:0], spans...)
	*cp = in
	var bounds [maxMergedRuns + 1]int
	k := 0
	for i := 1; i < len(in); i++ {
		if cmpSpan(in[i-1], in[i]) > 0 {
			k++
			bounds[k] = i
		}
	}
	k++
	bounds[k] = len(in)
	var head [maxMergedRuns]int
	copy(head[:k], bounds[:k])
	out := spans[:0]
	last := -1
	for {
		best, tie := -1, false
		for r := range k {
			if head[r] == bounds[r+1] {
				continue
			}
			if best < 0 {
				best = r
				continue
			}
			switch c := cmpSpan(in[head[r]], in[head[best]]); {
			case c < 0:
				best, tie = r, false
			case c == 0:
				tie = true
			}
		}
		if best < 0 {
			return out, true
		}
		s := in[head[best]]
		head[best]++
		// Another span equal to s is at the head of a run (or next in
		// s's own): if it is not the same span, the sort picks.
		if n := head[best]; n < bounds[best+1] && cmpSpan(in[n], s) == 0 {
			tie = true
		}
		if tie {
			for r := range k {
				if head[r] < bounds[r+1] {
					if o := in[head[r]]; cmpSpan(o, s) == 0 && (o.rule != s.rule || o.repl != s.repl) {
						copy(spans, in)
						return nil, false
					}
				}
			}
		}
		if s.start >= last {
			out = append(out, s)
			last = s.end
		}
	}
}

// spanCopies are resolveRuns' copies of its input, reused; one longer
// than maxKeptCopy is not kept.
var spanCopies = sync.Pool{New: func() any { return new([]span) }}

const maxKeptCopy = 1 << 16

var dataURLRe = regexp.MustCompile(`data:([a-z]+/[A-Za-z0-9.+-]+)?(?:;[A-Za-z0-9=.+-]+)*;base64,([A-Za-z0-9+/]{16,}={0,2})`)

func (r *Redactor) dataURLSpans(text []byte, protect func() [][2]int, spans []span, prio int) []span {
	if !bytes.Contains(text, []byte(";base64,")) {
		return spans
	}
	for _, m := range dataURLRe.FindAllSubmatchIndex(text, -1) {
		if overlapsAny(m[0], m[1], protect()) {
			continue
		}
		mime := "application/octet-stream"
		if m[2] >= 0 {
			mime = string(text[m[2]:m[3]])
		}
		payload := text[m[4]:m[5]]
		spans = append(spans, span{start: m[4], end: m[5], rule: RuleBinary, repl: binaryToken(mime, base64Len(payload)), prio: prio})
	}
	return spans
}

func isB64Byte(c byte) bool { return isAlnum(c) || c == '+' || c == '/' }

// blobSpans finds long runs of base64 in free text: inline images and
// binaries pasted into tool output. Runs need all of upper case, lower case
// and digits so that long words, hex digests and padding runs stay.
//
// Only maximal runs count, and one of blobMin bytes or more that starts at
// or after i covers text[i+blobMin-1]: so when that byte is not base64 the
// scan jumps past it, and otherwise it finds the run around it.
func (r *Redactor) blobSpans(text []byte, protect func() [][2]int, spans []span, prio int) []span {
	for i := 0; i < len(text); {
		p := i + r.blobMin - 1
		if p >= len(text) {
			break
		}
		if !isB64Byte(text[p]) {
			i = p + 1
			continue
		}
		for p > i && isB64Byte(text[p-1]) {
			p--
		}
		i = p
		j := i
		for j < len(text) && isB64Byte(text[j]) {
			j++
		}
		e := j
		for e < len(text) && e < j+2 && text[e] == '=' {
			e++
		}
		if j-i >= r.blobMin && leftBoundary(text, i) && hasDigit(text[i:j]) && hasUpper(text[i:j]) && hasLower(text[i:j]) && !overlapsAny(i, e, protect()) {
			spans = append(spans, span{start: i, end: e, rule: RuleBase64Blob, repl: binaryToken(sniffBase64(text[i:e]), base64Len(text[i:e])), prio: prio})
		}
		i = e
		if i == j {
			i = j + 1
		}
	}
	return spans
}

// base64Len is the decoded size of a base64 text, ignoring whitespace.
func base64Len(b []byte) int {
	n, pad := 0, 0
	for _, c := range b {
		switch {
		case c == '=':
			pad++
			n++
		case c == ' ' || c == '\n' || c == '\r' || c == '\t':
		default:
			n++
		}
	}
	return n/4*3 + max(0, (n%4)-1) - pad
}

// sniffBase64 guesses a media type from the first decoded bytes.
func sniffBase64(b []byte) string {
	var head [24]byte
	n := 0
	for _, c := range b {
		if isB64Byte(c) {
			head[n] = c
			n++
			if n == len(head) {
				break
			}
		}
	}
	raw, _ := base64.StdEncoding.DecodeString(string(head[:n/4*4]))
	switch {
	case bytes.HasPrefix(raw, []byte("\x89PNG")):
		return "image/png"
	case bytes.HasPrefix(raw, []byte("\xff\xd8\xff")):
		return "image/jpeg"
	case bytes.HasPrefix(raw, []byte("GIF8")):
		return "image/gif"
	case len(raw) >= 12 && bytes.HasPrefix(raw, []byte("RIFF")) && string(raw[8:12]) == "WEBP":
		return "image/webp"
	case bytes.HasPrefix(raw, []byte("%PDF")):
		return "application/pdf"
	case bytes.HasPrefix(raw, []byte("PK\x03\x04")):
		return "application/zip"
	}
	return "application/octet-stream"
}
