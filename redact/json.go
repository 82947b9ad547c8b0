package redact

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"
	"unsafe"

	"github.com/evcap/evcap/internal/jsonwalk"
)

// ErrNotJSON is returned by Redactor.JSON for input that is not one valid
// JSON value (or is nested deeper than jsonwalk.MaxDepth).
var ErrNotJSON = errors.New("not a valid JSON value")

// jsonRedaction is the Visitor that redacts one JSON value: it plans the
// replacements of every key and string value (jsonwalk splices them into
// the output, so bytes outside them are copied as they are) and keeps the
// ledger. It tracks what a value inherits from the keys above it.
type jsonRedaction struct {
	r     *Redactor
	w     jsonwalk.Walker
	build bool
	led   ledger
	// own holds the keyword hits of the string being searched (hitsB
	// is scanHits' second lane), and lits finds rule literals in it from
	// its hits.
	own   []kwHit
	hitsB []kwHit
	lits  litFinder
	// long and longSpans are the last string of at least reuseMin bytes
	// in this walk and its spans: a tool result often carries its output
	// twice (Claude's message content and tool_use_result.stdout), and
	// the second copy is not searched again.
	long      []byte
	longSpans []span
	frames    []frame
	// spans is the array findSpansFound fills for each string, reused:
	// a string's spans are done with before the next string.
	spans []span
	// The member whose value comes next: its key as in the input
	// (decoded, before redaction) and normalised.
	key     []byte
	keyNorm string
	keyCred int // credentialName(key)
	ptr     []byte
	// then sees every token after redaction (JSONVisit).
	then jsonwalk.Visitor
	// memo holds the short strings this walk's Redactor found clean,
	// kept from walk to walk with the pooled jsonRedaction.
	memo cleanMemo
}

// frame is what the members or elements of one object or array inherit.
type frame struct {
	obj     bool
	env     bool   // inside an env / environment map
	headers bool   // inside response headers
	mime    string // media type seen earlier in this object
}

// scope is what a value inherits from the keys above it.
type scope struct {
	key     string  // normalised key of the member holding the value
	env     bool    // inside an env / environment map
	headers bool    // inside response headers
	mime    *string // media type seen earlier in the enclosing object
	cred    int     // credentialName of the member's key
}

var jsonRedactions = sync.Pool{New: func() any { return new(jsonRedaction) }}

func (r *Redactor) walkJSON(b []byte, build bool) ([]byte, []Finding, error) {
	j := jsonRedactions.Get().(*jsonRedaction)
	defer jsonRedactions.Put(j)
	out, changed, findings, err := j.run(r, &j.w, b, build, nil)
	if err != nil {
		return nil, nil, err
	}
	if changed {
		out = append([]byte(nil), out...)
	}
	return out, findings, nil
}

// JSONVisit is JSON for a caller that rewrites the value further in the
// same walk (sanitize maps ids and times while redacting): b is walked
// once, with w, and then (when not nil) is called with every token right
// after redaction has planned its edits to it. For a string or key those
// edits are the token's splices: then sees the redacted text with
// Token.AppendSpliced (the text a walk of JSON's output would decode),
// may override it with Token.Replace, and may replace numbers and
// literals; w.Path holds the keys as redacted. The output, with both
// rewrites applied, is w's buffer (valid until w's next Walk; b itself
// when nothing changed), and findings are redaction's only. An error from
// then stops the walk and is returned as it is; invalid JSON gives an
// error wrapping ErrNotJSON, as JSON does.
func (r *Redactor) JSONVisit(w *jsonwalk.Walker, b []byte, then jsonwalk.Visitor) (out []byte, changed bool, findings []Finding, err error) {
	j := jsonRedactions.Get().(*jsonRedaction)
	defer jsonRedactions.Put(j)
	return j.run(r, w, b, true, then)
}

// run walks b with w, redacting (building the output when build is set)
// and handing each token on to then.
func (j *jsonRedaction) run(r *Redactor, w *jsonwalk.Walker, b []byte, build bool, then jsonwalk.Visitor) ([]byte, bool, []Finding, error) {
	j.r, j.build, j.led, j.then = r, build, ledger{}, then
	j.memo.reset(r)
	j.frames, j.key, j.keyNorm, j.keyCred = j.frames[:0], j.key[:0], "", 0
	out, changed, err := w.Walk(b, j)
	j.r, j.then = nil, nil
	if cap(j.own) > maxKeptHits {
		j.own, j.hitsB = nil, nil
	}
	j.lits = litFinder{}
	j.long, j.longSpans = nil, nil
	if err != nil {
		if then != nil && !errors.Is(err, jsonwalk.ErrSyntax) && !errors.Is(err, jsonwalk.ErrDepth) {
			return nil, false, nil, err
		}
		return nil, false, nil, fmt.Errorf("%w: %w", ErrNotJSON, err)
	}
	return out, changed, j.led.list, nil
}

// Visit implements jsonwalk.Visitor.
func (j *jsonRedaction) Visit(w *jsonwalk.Walker, t *jsonwalk.Token) error {
	switch t.Kind {
	case jsonwalk.BeginObject, jsonwalk.BeginArray:
		f := frame{obj: t.Kind == jsonwalk.BeginObject}
		if n := len(j.frames); n > 0 {
			p := &j.frames[n-1]
			f.env, f.headers = p.env, p.headers
			if p.obj && f.obj {
				switch j.keyNorm {
				case "env", "environment":
					f.env = true
				case "responseheaders":
					f.headers = true
				}
			}
		}
		j.frames = append(j.frames, f)
	case jsonwalk.EndObject, jsonwalk.EndArray:
		j.frames = j.frames[:len(j.frames)-1]
	case jsonwalk.Key:
		dec := t.Text()
		p := &j.frames[len(j.frames)-1]
		j.key = append(j.key[:0], dec...)
		var edits []span
		if k, ok := j.memo.cleanKey(dec); ok && !t.Escaped() {
			// A key seen before and found clean: its normal form and
			// credentialName are as they were.
			j.keyNorm, j.keyCred = k.norm, k.cred
		} else {
			j.keyNorm = j.r.normKey(dec)
			if len(dec) < j.r.minLen {
				j.keyCred = credentialName(dec)
			} else {
				found := j.found(dec)
				edits = j.r.findSpansAt(dec, &found, j.spans, &j.lits)
				j.keepSpans(edits)
				// The key names a credential only if it holds a
				// credential word, which are the keywords of
				// credential-assignment.
				j.keyCred = 0
				if c := j.r.credPrio; c < 0 || found.has(c) {
					j.keyCred = credentialName(dec)
				}
			}
			if len(edits) == 0 && !t.Escaped() {
				j.memo.noteKey(dec, memoKey{norm: j.keyNorm, cred: j.keyCred})
			}
		}
		if j.keyNorm == "" && p.headers {
			// Rate-limit headers are matched by prefix; response headers
			// are rare enough to pay for the full folded name.
			j.keyNorm = foldKey(dec)
		}
		if len(edits) > 0 {
			// A key's own findings are reported at the member it names.
			j.ptr = jsonwalk.AppendPointer(j.ptr[:0], w.Path())
			j.ptr = jsonwalk.AppendPointerToken(j.ptr, applySpans(dec, edits))
			j.record(t, dec, edits)
		}
	case jsonwalk.String:
		var sc scope
		var p *frame
		if n := len(j.frames); n > 0 {
			p = &j.frames[n-1]
			sc.env, sc.headers = p.env, p.headers
			if p.obj {
				sc.key, sc.mime, sc.cred = j.keyNorm, &p.mime, j.keyCred
			}
		}
		dec := t.Text()
		edits := j.stringEdits(t, dec, sc)
		if len(edits) > 0 {
			j.ptr = jsonwalk.AppendPointer(j.ptr[:0], w.Path())
			j.record(t, dec, edits)
		}
		if p != nil && p.obj && (sc.key == "mediatype" || sc.key == "mimetype") {
			p.mime = string(dec)
		}
	}
	if j.then != nil {
		return j.then.Visit(w, t)
	}
	return nil
}

// record adds the edits of one string to the ledger at j.ptr and, when
// building, to the output.
func (j *jsonRedaction) record(t *jsonwalk.Token, dec []byte, edits []span) {
	ptr := string(j.ptr)
	for _, e := range edits {
		n := e.end - e.start
		if e.rule == RuleLargeString {
			n = len(dec)
		}
		j.led.add(e.rule, ptr, n)
		// Keys are spliced even when only scanning: the path, and so the
		// pointers of the findings below, hold the redacted key.
		if j.build || t.Kind == jsonwalk.Key {
			// Splice only reads repl: the replacement's own bytes, not
			// a copy of them per splice.
			t.Splice(e.start, e.end, unsafe.Slice(unsafe.StringData(e.repl), len(e.repl)))
		}
	}
}

func applySpans(text []byte, spans []span) []byte {
	if len(spans) == 0 {
		return text
	}
	out := make([]byte, 0, len(text))
	last := 0
	for _, s := range spans {
		out = append(out, text[last:s.start]...)
		out = append(out, s.repl...)
		last = s.end
	}
	return append(out, text[last:]...)
}

// found is what r.keywords.scan(dec) returns for dec, the decoded text of
// a string or key about to be searched, and sets j.lits to the keyword
// hits in it. Each such text is scanned on its own, when it is searched:
// the keys, the punctuation, the texts too short for any rule and those
// the memo knows are clean (most of a stream's line) are not scanned at
// all, where one scan of the whole value read every byte of it.
func (j *jsonRedaction) found(dec []byte) bitset {
	k := j.r.keywords
	j.own = k.scanHits(dec, j.own[:0], &j.hitsB)
	j.lits = litFinder{r: j.r, hits: j.own}
	return k.within(dec, j.own, 0)
}

// keepSpans keeps the array of spans for the next string, unless it grew
// past maxKeptSpans (a long tool output full of paths).
func (j *jsonRedaction) keepSpans(spans []span) {
	if cap(spans) <= maxKeptSpans {
		j.spans = spans[:0]
	}
}

const maxKeptSpans = 4096

// maxKeptHits is the most hits whose array a pooled walk keeps.
const maxKeptHits = 1 << 14

// stringEdits plans the replacements for the string value t, whose
// decoded text is dec.
func (j *jsonRedaction) stringEdits(t *jsonwalk.Token, dec []byte, sc scope) []span {
	r := j.r
	if len(dec) > 0 && !containsToken(dec) {
		if rule, repl := r.wholeValue(dec, sc); rule != "" {
			return []span{{start: 0, end: len(dec), rule: rule, repl: repl}}
		}
	}
	// Past the key's say (wholeValue), a string's spans depend on its
	// text alone: the same long text again gets the spans it got.
	reuse := len(dec) >= reuseMin
	if reuse && bytes.Equal(dec, j.long) {
		return slices.Clone(j.longSpans)
	}
	// A long text searched before, in this walk or an earlier one, gets
	// the spans it got (cleanMemo.long).
	memoLong := len(dec) >= longMemoMin && len(dec) <= longMemoMax
	var hash uint64
	if memoLong {
		spans, h, ok := j.memo.longSpans(dec)
		if ok {
			return spans
		}
		hash = h
	}
	cut := r.cuts(dec)
	var spans []span
	// A short text this walk's Redactor searched before and found clean
	// (cleanMemo) is not searched again.
	memo := !cut && !t.Escaped() && len(dec) <= memoMaxLen
	if len(dec) >= r.minLen && !(memo && j.memo.cleanValue(dec)) {
		found := j.found(dec)
		spans = r.findSpansLong(dec, &found, j.spans, cut, &j.lits)
		j.keepSpans(spans)
		if len(spans) == 0 && memo {
			j.memo.noteValue(dec)
		}
	}
	if cut {
		spans = r.truncate(dec, spans)
	}
	if reuse {
		j.long, j.longSpans = append(j.long[:0], dec...), append(j.longSpans[:0], spans...)
	}
	if memoLong {
		j.memo.noteLong(hash, dec, spans)
	}
	return spans
}

// reuseMin is the shortest string whose spans a walk keeps for a copy of
// it later in the same value: a copy costs a compare of its bytes, and
// keeping one costs its length in memory until the walk ends, so only
// texts long enough for the search to dominate are kept.
const reuseMin = 256 << 10

// cuts reports whether truncate cuts text.
func (r *Redactor) cuts(text []byte) bool {
	return r.maxString > 0 && len(text) > r.maxString && !r.off.large
}

// findSpansLong is findSpansAt(text, found, buf, lits), except that when
// cut is set (the text is about to be truncated) the path spans that
// truncate would drop with the middle may be missing: truncate gives the
// same spans either way (findSpansCut).
func (r *Redactor) findSpansLong(text []byte, found *bitset, buf []span, cut bool, lits *litFinder) []span {
	if cut {
		if m1, m2 := r.maxString/2, len(text)-r.maxString/4; m1 < m2 {
			if spans, ok := r.findSpansCut(text, found, 0, buf, m1, m2, lits); ok {
				return spans
			}
		}
	}
	return r.findSpansAt(text, found, buf, lits)
}

// wholeValue decides whether the key context makes the whole string a
// secret (or a binary).
func (r *Redactor) wholeValue(dec []byte, sc scope) (rule, repl string) {
	switch {
	case sc.env && !r.off.env:
		return RuleEnvValue, redactedToken(RuleEnvValue)
	case sc.headers && !r.safeHeader(sc.key) && !r.off.respHeader:
		return RuleRespHeader, redactedToken(RuleRespHeader)
	case r.sensitive[sc.key] && !r.off.sensitiveKey && !r.allowed(dec):
		return RuleSensitiveKey, redactedToken(RuleSensitiveKey)
	case sc.cred > 0 && !r.off.cred && acceptValue(dec, sc.cred == 2, true) && !r.allowed(dec):
		return RuleCredentialAssignment, redactedToken(RuleCredentialAssignment)
	}
	switch sc.key {
	case "data", "bytes", "b64json", "base64", "imagedata":
		if len(dec) >= 256 && !r.off.binary && allBase64(dec) {
			mime := ""
			if sc.mime != nil {
				mime = *sc.mime
			}
			if mime == "" || strings.ContainsAny(mime, ";]") {
				mime = sniffBase64(dec)
			}
			return RuleBinary, binaryToken(mime, base64Len(dec))
		}
	}
	return "", ""
}

func allBase64(b []byte) bool {
	for _, c := range b {
		if !isB64Byte(c) && c != '=' && c != '\n' && c != '\r' && c != '-' && c != '_' {
			return false
		}
	}
	return true
}

// truncate cuts a long string to a head and a tail around a marker that
// keeps the original length. Cut points move so that they never split a
// UTF-8 sequence or a planned replacement; replacements in the cut part
// disappear with it.
func (r *Redactor) truncate(dec []byte, spans []span) []span {
	h := r.maxString / 2
	t := len(dec) - r.maxString/4
	for _, s := range spans {
		if s.start < h && h < s.end {
			h = s.start
		}
		if s.start < t && t < s.end {
			t = s.end
		}
	}
	for h > 0 && !utf8.RuneStart(dec[h]) {
		h--
	}
	for t < len(dec) && !utf8.RuneStart(dec[t]) {
		t++
	}
	var out []span
	for _, s := range spans {
		if s.end <= h {
			out = append(out, s)
		}
	}
	out = append(out, span{start: h, end: t, rule: RuleLargeString, repl: truncatedToken(len(dec))})
	for _, s := range spans {
		if s.start >= t {
			out = append(out, s)
		}
	}
	return out
}
