package redact

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/tidwall/gjson"
)

// ErrNotJSON is returned by Redactor.JSON for input that is not one valid
// JSON value (or is nested deeper than maxDepth).
var ErrNotJSON = errors.New("not a valid JSON value")

const maxDepth = 512

// walker scans one JSON value and splices replacements into a copy of it.
// It never re-encodes: bytes outside replaced spans are copied as they are.
type walker struct {
	r     *Redactor
	in    []byte
	pos   int
	build bool
	out   []byte
	last  int
	led   ledger
	path  []seg
	// filter holds the rules whose keywords occur somewhere in the line.
	filter lineFilter
	// scratch holds the decoded text of the current string value.
	scratch []byte
}

// seg is one step of the pointer to the current value: a decoded,
// already-redacted key, or an array index.
type seg struct {
	key   []byte
	index int
}

// scope is what a value inherits from the keys above it.
type scope struct {
	key     string  // normalised key of the member holding the value
	env     bool    // inside an env / environment map
	headers bool    // inside response headers
	mime    *string // media type seen earlier in the enclosing object
	cred    int     // credentialName of the member's key
}

func (r *Redactor) walkJSON(b []byte, build bool) ([]byte, []Finding, error) {
	if !gjson.ValidBytes(b) {
		return nil, nil, ErrNotJSON
	}
	w := &walker{r: r, in: b, build: build, filter: r.filterLine(b)}
	w.ws()
	if err := w.value(scope{}, 0); err != nil {
		return nil, nil, err
	}
	if w.out == nil {
		return b, w.led.list, nil
	}
	return append(w.out, b[w.last:]...), w.led.list, nil
}

func (w *walker) ws() {
	for w.pos < len(w.in) {
		switch w.in[w.pos] {
		case ' ', '\t', '\n', '\r':
			w.pos++
		default:
			return
		}
	}
}

func (w *walker) value(sc scope, depth int) error {
	if depth > maxDepth {
		return fmt.Errorf("%w: nested deeper than %d", ErrNotJSON, maxDepth)
	}
	if w.pos >= len(w.in) {
		return ErrNotJSON
	}
	switch w.in[w.pos] {
	case '{':
		return w.object(sc, depth)
	case '[':
		return w.array(sc, depth)
	case '"':
		w.str(sc, false)
		return nil
	default:
		for w.pos < len(w.in) {
			switch w.in[w.pos] {
			case ',', '}', ']', ' ', '\t', '\n', '\r':
				return nil
			}
			w.pos++
		}
		return nil
	}
}

func (w *walker) object(sc scope, depth int) error {
	w.pos++
	var mime string
	for {
		w.ws()
		if w.pos >= len(w.in) {
			return ErrNotJSON
		}
		if w.in[w.pos] == '}' {
			w.pos++
			return nil
		}
		if w.in[w.pos] == ',' {
			w.pos++
			continue
		}
		if w.in[w.pos] != '"' {
			return ErrNotJSON
		}
		origKey, newKey := w.str(sc, true)
		w.ws()
		if w.pos >= len(w.in) || w.in[w.pos] != ':' {
			return ErrNotJSON
		}
		w.pos++
		w.ws()
		if w.pos >= len(w.in) {
			return ErrNotJSON
		}
		nk := w.r.normKey(origKey)
		if nk == "" && sc.headers {
			// Rate-limit headers are matched by prefix; response headers
			// are rare enough to pay for the full folded name.
			nk = foldKey(origKey)
		}
		child := scope{key: nk, env: sc.env, headers: sc.headers, mime: &mime}
		if w.in[w.pos] == '"' {
			child.cred = credentialName(origKey)
		}
		if w.in[w.pos] == '{' {
			switch nk {
			case "env", "environment":
				child.env = true
			case "responseheaders":
				child.headers = true
			}
		}
		w.path = append(w.path, seg{key: newKey, index: -1})
		var err error
		if w.in[w.pos] == '"' && (nk == "mediatype" || nk == "mimetype") {
			v, _ := w.str(child, false)
			mime = string(v)
		} else {
			err = w.value(child, depth+1)
		}
		w.path = w.path[:len(w.path)-1]
		if err != nil {
			return err
		}
	}
}

func (w *walker) array(sc scope, depth int) error {
	w.pos++
	child := scope{env: sc.env, headers: sc.headers}
	for i := 0; ; {
		w.ws()
		if w.pos >= len(w.in) {
			return ErrNotJSON
		}
		switch w.in[w.pos] {
		case ']':
			w.pos++
			return nil
		case ',':
			w.pos++
			continue
		}
		w.path = append(w.path, seg{index: i})
		err := w.value(child, depth+1)
		w.path = w.path[:len(w.path)-1]
		if err != nil {
			return err
		}
		i++
	}
}

func (w *walker) pointer() string {
	if len(w.path) == 0 {
		return ""
	}
	var b strings.Builder
	for _, p := range w.path {
		b.WriteByte('/')
		if p.index >= 0 {
			b.WriteString(strconv.Itoa(p.index))
			continue
		}
		for _, c := range p.key {
			switch c {
			case '~':
				b.WriteString("~0")
			case '/':
				b.WriteString("~1")
			default:
				b.WriteByte(c)
			}
		}
	}
	return b.String()
}

// str handles the string token at w.pos. It returns the decoded text and,
// for keys, the decoded text after redaction (used in pointers).
// The returned slices may alias the input, and for a value the walker's
// scratch buffer, which the next string overwrites.
func (w *walker) str(sc scope, isKey bool) (orig, redacted []byte) {
	start := w.pos + 1
	end := start
	escaped := false
	for end < len(w.in) {
		q := bytes.IndexByte(w.in[end:], '"')
		if q < 0 {
			end = len(w.in)
			break
		}
		e := bytes.IndexByte(w.in[end:end+q], '\\')
		if e < 0 {
			end += q
			break
		}
		escaped = true
		end += e + 2 // the backslash and the byte it escapes
	}
	w.pos = end + 1
	raw := w.in[start:end]
	dec := raw
	if escaped {
		if isKey {
			// Keys stay in w.path while their value is walked.
			dec = decodeJSONString(make([]byte, 0, len(raw)), raw)
		} else {
			w.scratch = decodeJSONString(slices.Grow(w.scratch[:0], len(raw)), raw)
			dec = w.scratch
		}
	}
	edits := w.r.stringEdits(dec, sc, isKey, w.filter)
	redacted = applySpans(dec, edits)
	if len(edits) == 0 {
		return dec, redacted
	}
	var ptr string
	if isKey {
		// A key's own findings are reported at the member it names.
		w.path = append(w.path, seg{key: redacted, index: -1})
		ptr = w.pointer()
		w.path = w.path[:len(w.path)-1]
	} else {
		ptr = w.pointer()
	}
	for _, e := range edits {
		n := e.end - e.start
		if e.rule == RuleLargeString {
			n = len(dec)
		}
		w.led.add(e.rule, ptr, n)
	}
	if w.build {
		// Edits are sorted and do not overlap, so their bounds ascend.
		pos := make([]int, 0, 2*len(edits))
		for _, e := range edits {
			pos = append(pos, e.start, e.end)
		}
		if escaped {
			rawOffsets(raw, pos)
		}
		for k, e := range edits {
			w.out = append(w.out, w.in[w.last:start+pos[2*k]]...)
			w.out = append(w.out, e.repl...)
			w.last = start + pos[2*k+1]
		}
	}
	return dec, redacted
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

// stringEdits plans the replacements for one decoded JSON string.
func (r *Redactor) stringEdits(dec []byte, sc scope, isKey bool, filter lineFilter) []span {
	if !isKey && len(dec) > 0 && !containsToken(dec) {
		if rule, repl := r.wholeValue(dec, sc); rule != "" {
			return []span{{start: 0, end: len(dec), rule: rule, repl: repl}}
		}
	}
	spans := r.findSpansIn(dec, filter)
	if !isKey && r.maxString > 0 && len(dec) > r.maxString && !r.disabled[RuleLargeString] {
		spans = r.truncate(dec, spans)
	}
	return spans
}

// wholeValue decides whether the key context makes the whole string a
// secret (or a binary).
func (r *Redactor) wholeValue(dec []byte, sc scope) (rule, repl string) {
	switch {
	case sc.env && !r.disabled[RuleEnvValue]:
		return RuleEnvValue, redactedToken(RuleEnvValue)
	case sc.headers && !r.safeHeader(sc.key) && !r.disabled[RuleRespHeader]:
		return RuleRespHeader, redactedToken(RuleRespHeader)
	case r.sensitive[sc.key] && !r.disabled[RuleSensitiveKey] && !r.allowed(dec):
		return RuleSensitiveKey, redactedToken(RuleSensitiveKey)
	case sc.cred > 0 && !r.disabled[RuleCredentialAssignment] && acceptValue(dec, sc.cred == 2, true) && !r.allowed(dec):
		return RuleCredentialAssignment, redactedToken(RuleCredentialAssignment)
	}
	switch sc.key {
	case "data", "bytes", "b64json", "base64", "imagedata":
		if len(dec) >= 256 && !r.disabled[RuleBinary] && allBase64(dec) {
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

// decodeJSONString appends the decoded content of a JSON string (between
// the quotes) to dec.
func decodeJSONString(dec, raw []byte) []byte {
	for i := 0; i < len(raw); {
		if raw[i] != '\\' {
			j := bytes.IndexByte(raw[i:], '\\')
			if j < 0 {
				return append(dec, raw[i:]...)
			}
			dec = append(dec, raw[i:i+j]...)
			i += j
			continue
		}
		var n int
		dec, n = appendChar(dec, raw, i)
		i += n
	}
	return dec
}

// rawOffsets maps positions in the decoded content of a JSON string to
// offsets in raw (the content between the quotes): a decoded byte maps to
// where the character it belongs to starts, and the decoded length to
// len(raw). pos must be in ascending order; it is rewritten in place.
func rawOffsets(raw []byte, pos []int) {
	var buf [8]byte
	d, k := 0, 0
	for i := 0; i < len(raw) && k < len(pos); {
		if raw[i] != '\\' {
			// A run without escapes decodes to itself.
			j := bytes.IndexByte(raw[i:], '\\')
			if j < 0 {
				j = len(raw) - i
			}
			for k < len(pos) && pos[k] < d+j {
				pos[k] = i + pos[k] - d
				k++
			}
			d += j
			i += j
			continue
		}
		c, n := appendChar(buf[:0], raw, i)
		w := len(c)
		for k < len(pos) && pos[k] < d+w {
			pos[k] = i
			k++
		}
		d += w
		i += n
	}
	for ; k < len(pos); k++ {
		pos[k] = len(raw)
	}
}

// appendChar appends the decoding of the character at raw[i] (which may
// be an escape) and returns how many bytes of raw it took.
func appendChar(dec, raw []byte, i int) ([]byte, int) {
	c := raw[i]
	if c != '\\' || i+1 >= len(raw) {
		return append(dec, c), 1
	}
	switch e := raw[i+1]; e {
	case 'n':
		return append(dec, '\n'), 2
	case 't':
		return append(dec, '\t'), 2
	case 'r':
		return append(dec, '\r'), 2
	case 'b':
		return append(dec, '\b'), 2
	case 'f':
		return append(dec, '\f'), 2
	case 'u':
		if i+6 > len(raw) {
			return append(dec, e), 2
		}
		r1 := hex4(raw[i+2 : i+6])
		if utf16.IsSurrogate(r1) {
			if i+12 <= len(raw) && raw[i+6] == '\\' && raw[i+7] == 'u' {
				if r := utf16.DecodeRune(r1, hex4(raw[i+8:i+12])); r != utf8.RuneError {
					return utf8.AppendRune(dec, r), 12
				}
			}
			r1 = utf8.RuneError
		}
		return utf8.AppendRune(dec, r1), 6
	default:
		return append(dec, e), 2
	}
}

func hex4(b []byte) rune {
	var r rune
	for _, c := range b {
		r <<= 4
		switch {
		case c >= '0' && c <= '9':
			r |= rune(c - '0')
		case c >= 'a' && c <= 'f':
			r |= rune(c - 'a' + 10)
		case c >= 'A' && c <= 'F':
			r |= rune(c - 'A' + 10)
		}
	}
	return r
}
