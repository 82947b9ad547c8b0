package sanitize

import (
	"fmt"

	"github.com/evcap/evcap/envelope"
	"github.com/evcap/evcap/internal/jsonwalk"
	"github.com/evcap/evcap/redact"
)

// Finishing a record rewrites the strings and numbers of its redacted JSON
// that pseudonyms, times, private text or the delta's chunk change. Which
// ones may change mostly depends on nothing but the record: the redacting
// stage notes them (cand) in the walk that redacts the record, so the
// finishing stage, which runs in input order on one goroutine, looks at
// those few tokens instead of walking the whole record again. The one part
// that depends on earlier records, the ids learned so far, is covered by a
// shape every learned id has (mayHoldID); finishing still asks the ids
// themselves, in document order, as the walk did.

// cand is a token of a record's redacted JSON that finishing may rewrite.
type cand struct {
	off, end int    // the token's bytes (a string with its quotes) in the redacted JSON
	key      string // the key it sits under, "" for an array element or the root
	delta    bool   // the string at the record's delta path
	num      bool   // a 13-digit number under a time key
	exact    bool   // the string's text is its raw content byte for byte
}

// candWalk is the redacting stage's Visitor: it notes the candidates of
// one record. A worker keeps one for all the records it redacts.
type candWalk struct {
	learn   bool
	private bool
	hole    []string
	isDelt  bool
	cands   []cand
	spliced bool // redaction changed a token: the offsets are not the output's
	keys    map[string]string
}

// maxCandKeys bounds the keys a candWalk keeps interned.
const maxCandKeys = 4096

func (v *candWalk) key(k []byte) string {
	if len(k) == 0 {
		return ""
	}
	if s, ok := v.keys[string(k)]; ok {
		return s
	}
	s := string(k)
	if len(v.keys) < maxCandKeys {
		if v.keys == nil {
			v.keys = map[string]string{}
		}
		v.keys[s] = s
	}
	return s
}

// Visit implements jsonwalk.Visitor. Run after redaction's in the same
// walk (redact.JSONVisit), a token redaction spliced makes the offsets of
// what follows differ from the output's, so the record is walked again
// (redactJSON).
func (v *candWalk) Visit(w *jsonwalk.Walker, t *jsonwalk.Token) error {
	if v.spliced {
		return nil
	}
	switch t.Kind {
	case jsonwalk.Key:
		if t.Spliced() {
			v.spliced = true
		}
	case jsonwalk.String:
		if t.Spliced() {
			v.spliced = true
			return nil
		}
		path := w.Path()
		delta := v.isDelt && pathIs(path, v.hole)
		key := lastKey(path)
		if !delta && !v.mayChange(key, t.Text()) {
			return nil
		}
		v.cands = append(v.cands, cand{off: t.Offset(), end: t.Offset() + len(t.Raw()), key: v.key(key), delta: delta, exact: !t.Escaped()})
	case jsonwalk.Number:
		raw := t.Raw()
		if len(raw) != 13 || raw[0] < '0' || raw[0] > '9' {
			return nil // millis rewrites 13-digit integers only
		}
		key := lastKey(w.Path())
		if key == nil || !timeKeys[string(key)] {
			return nil
		}
		v.cands = append(v.cands, cand{off: t.Offset(), end: t.Offset() + len(raw), key: v.key(key), num: true})
	}
	return nil
}

// mayChange is true for every string finishing may rewrite (rewriteText),
// whatever ids earlier records taught.
func (v *candWalk) mayChange(key, text []byte) bool {
	switch {
	case len(text) >= 20 && len(text) <= 30 && text[0] >= '0' && text[0] <= '9':
		return true // maybe an RFC 3339 time (clock.isoString)
	case v.learn && idKeys[string(key)]:
		return true
	case v.private && privateKeys[string(key)]:
		return true
	}
	return mayHoldID(text)
}

// mayHoldID reports whether b holds a token (a run of letters, digits, "_"
// and "-") that family could have taken for an id: six bytes or more with
// a digit (a session id, uuid, "item_3"), or starting with a provider's id
// prefix ("toolu_…", at least four bytes after it). ids.replace changes
// nothing in b whenever mayHoldID(b) is false.
func mayHoldID(b []byte) bool {
	for i := 0; i < len(b); {
		if !tokenBytes[b[i]] {
			i++
			continue
		}
		j, digit := i, false
		for j < len(b) && tokenBytes[b[j]] {
			if b[j] >= '0' && b[j] <= '9' {
				digit = true
			}
			j++
		}
		if j-i >= 6 && (digit || hasIDPrefix(b[i:j])) {
			return true
		}
		i = j
	}
	return false
}

func hasIDPrefix(tok []byte) bool {
	for _, p := range idPrefixes {
		if len(tok) >= len(p) && string(tok[:len(p)]) == p {
			return true
		}
	}
	return false
}

// redactJSON is the redacting stage's part for a JSON body: the rules'
// redaction, and the candidates finishing looks at, with offsets into the
// redacted output.
func (it *prepped) redactJSON(vw *jsonwalk.Walker, cw *candWalk, private bool) {
	cw.learn = it.rec.Stage == envelope.StageNativeIn || it.rec.Stage == envelope.StageMeta
	cw.private = private
	cw.hole, cw.isDelt = it.d.path, it.d.isDelt
	cw.cands, cw.spliced = it.cands[:0], false
	out, changed, findings, err := it.red.JSONVisit(vw, it.body, cw)
	if err != nil {
		it.redErr = err
		it.cands = cw.cands[:0]
		return
	}
	it.findings = findings
	if !changed {
		it.out, it.changed, it.cands = it.body, false, cw.cands
		return
	}
	// JSONVisit's output is vw's; JSON would have copied it too.
	it.out, it.changed = append([]byte(nil), out...), true
	cw.cands, cw.spliced = cw.cands[:0], false
	if _, _, err := vw.Walk(it.out, cw); err != nil {
		it.candErr = err
	}
	it.cands = cw.cands
}

// rewrite applies the candidates to the redacted JSON red of the record
// being finished: pseudonyms, times, private text and the delta's chunk,
// in document order. The output is s.fin's (valid until the next record
// is finished, which is after this one is written), or red when nothing
// changed.
func (s *sanitizer) rewrite(it *item, learn bool, red []byte) ([]byte, bool) {
	dst := s.fin[:0]
	last := 0
	for _, c := range it.cands {
		raw := red[c.off:c.end]
		if c.num {
			if nr, ok := s.clock.millis(c.key, string(raw)); ok && nr != string(raw) {
				dst = append(append(dst, red[last:c.off]...), nr...)
				last = c.end
			}
			continue
		}
		text := raw[1 : len(raw)-1]
		if !c.exact {
			s.dec = jsonwalk.AppendDecoded(s.dec[:0], text)
			text = s.dec
		}
		if ns, ok := s.rewriteText(it, learn, c.delta, c.key, text); ok {
			dst = envelope.AppendJSONString(append(dst, red[last:c.off]...), ns)
			last = c.end
		}
	}
	if last == 0 {
		return red, false
	}
	dst = append(dst, red[last:]...)
	s.fin = dst
	return dst, true
}

// rewriteText is rewriteString with the delta and the key already known.
// The string it returns may point into text or into s.rw: it is for the
// caller to write out before the next call. Each step below tests for
// itself whether it applies (a time's shape, an id key, a known id in the
// text, private text), so a candidate that none applies to comes out
// unchanged without a test of its own first (one looked for the known ids
// in the text, which replace then looked for again).
func (s *sanitizer) rewriteText(it *item, learn, isDelta bool, k string, text []byte) (string, bool) {
	// Most candidates are ids that become their pseudonym: text is looked
	// at in place, and only what is kept (a new id) is copied.
	orig := bytesString(text)
	v := orig
	if isDelta {
		v = it.hole.chunk.Text
	}
	if t, ok := s.clock.isoString(v); ok {
		v = t
	}
	fam := ""
	if learn {
		fam = family(k, v)
	}
	if fam != "" {
		// v is one token (family), now a known id: replace gives its
		// pseudonym.
		s.rw = append(s.rw[:0], s.ids.pseudonym(s.ids.learn(fam, v))...)
		v = bytesString(s.rw)
	} else if out, ok := s.ids.appendReplace(s.rw[:0], v); ok {
		s.rw = out
		v = bytesString(out)
	}
	if s.opts.PrivateText && (isDelta || privateKeys[k]) {
		if nv, ok := privatize(v); ok {
			v = nv
		}
	}
	return v, v != orig
}

// finishJSON is finish's part for a JSON body: the redacting stage's
// output with the candidates rewritten.
func (s *sanitizer) finishJSON(it *item, learn bool) error {
	rec := it.rec
	if it.redErr != nil {
		return fmt.Errorf("sanitize: sequence %d: %w", rec.Sequence, it.redErr)
	}
	if it.candErr != nil {
		return fmt.Errorf("sanitize: sequence %d: %w: %w", rec.Sequence, redact.ErrNotJSON, it.candErr)
	}
	out, changed := s.rewrite(it, learn, it.red)
	s.addFindings(it, it.redFind, it.hole != nil, holePath(it.hole))
	if changed || it.redDirty {
		it.body, it.dirty = out, true
	}
	it.red, it.redFind = nil, nil
	return nil
}
