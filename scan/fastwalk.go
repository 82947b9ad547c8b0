package scan

import (
	"bytes"
	"errors"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"

	"github.com/evcap/evcap/internal/jsonwalk"
	"github.com/evcap/evcap/redact"
	"github.com/tidwall/gjson"
)

// The one-pass check of a JSON line. lineScan.line's walk (walk, record,
// learnIDs) reads a line with gjson, value by value: each nested value is
// scanned again at every level above it, and the record's fields and the
// ids it names are found by further walks. fastLine does all of it in one
// jsonwalk pass over the line (and one over each JSON held in a string),
// giving the same lineOut: the same ops in the same order, the same
// record fields. Strings are decoded as gjson decodes them (gjsonDecode),
// not as jsonwalk does (which makes invalid UTF-8 U+FFFD), and the
// record's fields are those gjson's Get finds (a key's first occurrence,
// keys compared decoded). What it does not handle it leaves to the gjson
// walk, which then checks the line instead: nesting near maxWalkDepth,
// a top-level array in a capture or fixture, input jsonwalk refuses.
// TestFastLineIsTheWalk (the repository's captures and lines built to
// hit the differences) and TestFastLineCorpus (the real corpus captures)
// compare the two line by line.

// bigLine is the length past which a line's buffers are let go.
const bigLine = 1 << 20

// errBail stops the one-pass walk: the line is left to the gjson walk.
var errBail = errors.New("scan: leave the line to the gjson walk")

// bailDepth is the nesting (counted as walk counts it) past which the
// one-pass walk leaves a line to the gjson walk, safely short of
// maxWalkDepth, where walk changes what it does.
const bailDepth = maxWalkDepth - 6

// frame is one open object or array, or the start of JSON held in a
// string (root: it adds a level of depth, not a pointer step).
type frame struct {
	arr, root bool
	idx       int
	// key is the current member's decoded key; secret: the key had
	// findings, so pointers spell keyStandIn instead.
	key    string
	secret bool
}

// fastWalk is one worker's state for fastLine.
type fastWalk struct {
	ls     *lineScan
	n      int64
	frames []frame
	// walkers and bufs are per level of held JSON (0: the line).
	walkers []*jsonwalk.Walker
	bufs    [][]byte
	level   int
	// moving[l]: the input of level l is in the buffer of the level
	// below, so text that aliases it must be copied to be kept.
	moving []bool
	// ptr caches the pointer of the current token (valid while ptrOK).
	ptr   string
	ptrOK bool

	// The record's fields, at the line's top level (first occurrences).
	record                   bool
	seenStage, seenSeq       bool
	seenSession, seenPayload bool
	seenProvider             bool
	stage, provider          string
	seq                      int64
	session                  string
	sessionOK                bool
	payloadStart, payloadEnd int
	inPayload                bool
	idVals                   []string

	// keyHit and textHit report the matcher's hits in a key and in a
	// string (made once: a closure per check would be an allocation
	// per string); found says keyHit was called.
	keyHit, textHit func(hit)
	found           bool
	hits            int // hits reported so far
}

// bstr views b as a string. The bytes must not change while the string is
// in use: they are a line's own copy (lineJob.line, never written after
// the reader made it) or a decoded string that is not reused.
func bstr(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// fastLine checks the JSON line t (trimmed as line trims it) in one pass,
// into ls.out; false, with ls.out as it was, when the gjson walk must
// check it instead.
func (ls *lineScan) fastLine(t []byte, n int64) bool {
	w := ls.fw
	if w == nil {
		w = &fastWalk{ls: ls}
		w.keyHit, w.textHit = w.onKeyHit, w.onTextHit
		ls.fw = w
	}
	o := ls.out
	mark := len(o.ops)
	*w = fastWalk{ls: ls, n: n, frames: w.frames[:0], walkers: w.walkers, bufs: w.bufs, moving: w.moving, idVals: w.idVals[:0],
		record: ls.kind == KindCapture || ls.kind == KindFixture, keyHit: w.keyHit, textHit: w.textHit}
	if w.record && t[0] == '[' {
		return false
	}
	err := w.walk(t, false)
	if len(t) > bigLine {
		// Do not keep a long line's decoding buffers (the walkers' and
		// the levels') for the rest of the file.
		w.walkers, w.bufs, w.moving = nil, nil, nil
	}
	if err != nil {
		o.ops = o.ops[:mark]
		return false
	}
	seq := int64(0)
	if w.record {
		seq = w.seq
		o.rec = true
		o.seq = seq
		if w.stage == "meta" || w.stage == "native_in" {
			for _, s := range w.idVals {
				if !ls.m.allowed(s) {
					o.learned = append(o.learned, s)
				}
			}
		}
		if w.sessionOK && volatileID("session_id", w.session) && !ls.m.allowed(w.session) {
			o.session = true
		}
		var payload gjson.Result
		if w.seenPayload {
			payload = gjson.Parse(bstr(t[w.payloadStart:w.payloadEnd]))
		}
		o.record(w.stage, w.provider, payload)
	} else {
		seq = w.seq
	}
	o.opSeq = seq
	return true
}

// walk walks in at the current level; an error wrapping
// jsonwalk.ErrSyntax means in is not JSON.
func (w *fastWalk) walk(in []byte, moving bool) error {
	if w.level == len(w.walkers) {
		w.walkers = append(w.walkers, &jsonwalk.Walker{})
		w.bufs = append(w.bufs, nil)
		w.moving = append(w.moving, false)
	}
	w.moving[w.level] = moving
	_, _, err := w.walkers[w.level].Walk(in, w)
	if errors.Is(err, jsonwalk.ErrDepth) {
		return errBail
	}
	return err
}

// pointer is the JSON pointer of the current token (for a key: of its
// member's value).
func (w *fastWalk) pointer() string {
	if w.ptrOK {
		return w.ptr
	}
	w.ptr = w.ls.join(w.frames)
	w.ptrOK = true
	return w.ptr
}

// join is the JSON pointer the frames spell, the same string for the same
// pointer:
// lines of one file repeat their shapes, so a pointer is built in a
// buffer and allocated only the first time it is seen (up to maxPtrs of
// them; then the cache starts again).
func (ls *lineScan) join(frames []frame) string {
	ls.pbuf = appendPointer(ls.pbuf[:0], frames)
	if p, ok := ls.ptrs[bstr(ls.pbuf)]; ok {
		return p
	}
	if ls.ptrs == nil {
		ls.ptrs = make(map[string]string, 256)
	} else if len(ls.ptrs) >= maxPtrs {
		clear(ls.ptrs)
	}
	p := string(ls.pbuf)
	ls.ptrs[p] = p
	return p
}

// maxPtrs bounds the pointer cache.
const maxPtrs = 4096

// appendPointer appends the JSON pointer the frames spell.
func appendPointer(b []byte, frames []frame) []byte {
	for i := range frames {
		fr := &frames[i]
		switch {
		case fr.root:
		case fr.arr:
			b = append(b, '/')
			b = strconv.AppendInt(b, int64(fr.idx), 10)
		case fr.secret:
			b = append(b, '/')
			b = append(b, keyStandIn...)
		default:
			b = append(b, '/')
			b = appendEscapedKey(b, fr.key)
		}
	}
	return b
}

// appendEscapedKey appends escapePointer(k).
func appendEscapedKey(b []byte, k string) []byte {
	for i := 0; i < len(k); i++ {
		switch k[i] {
		case '~':
			b = append(b, '~', '0')
		case '/':
			b = append(b, '~', '1')
		default:
			b = append(b, k[i])
		}
	}
	return b
}

// Visit is called by jsonwalk for every token.
func (w *fastWalk) Visit(jw *jsonwalk.Walker, t *jsonwalk.Token) error {
	w.ptrOK = false
	switch t.Kind {
	case jsonwalk.EndObject, jsonwalk.EndArray:
		w.frames = w.frames[:len(w.frames)-1]
		if w.inPayload && w.level == 0 && len(w.frames) == 1 {
			w.inPayload = false
			w.payloadEnd = t.Offset() + 1
		}
		return nil
	case jsonwalk.Key:
		return w.key(t)
	}
	// A value: its place in its parent.
	depth := len(w.frames)
	if depth > bailDepth {
		return errBail
	}
	top := w.level == 0 && depth == 1
	if depth > 0 {
		if p := &w.frames[depth-1]; p.arr {
			p.idx++
		}
	}
	if top {
		w.topValue(t)
	}
	switch t.Kind {
	case jsonwalk.BeginObject:
		w.frames = append(w.frames, frame{})
	case jsonwalk.BeginArray:
		w.frames = append(w.frames, frame{arr: true, idx: -1})
	case jsonwalk.String:
		return w.str(t, depth)
	}
	return nil
}

// topValue notes the record fields gjson's Get would find.
func (w *fastWalk) topValue(t *jsonwalk.Token) {
	fr := &w.frames[0]
	if fr.arr {
		return
	}
	switch fr.key {
	case "payload":
		if !w.seenPayload {
			w.seenPayload = true
			w.payloadStart = t.Offset()
			w.payloadEnd = t.Offset() + len(t.Raw())
			if t.Kind == jsonwalk.BeginObject || t.Kind == jsonwalk.BeginArray {
				w.inPayload = true
			}
		}
	case "sequence":
		if !w.seenSeq {
			w.seenSeq = true
			if t.Kind == jsonwalk.Number {
				w.seq = gjson.Parse(bstr(t.Raw())).Int()
			}
		}
	case "stage":
		if !w.seenStage {
			w.seenStage = true
			if t.Kind == jsonwalk.String {
				w.stage = w.decode(t, true)
			}
		}
	case "provider":
		if !w.seenProvider {
			w.seenProvider = true
			if t.Kind == jsonwalk.String {
				w.provider = w.decode(t, true)
			}
		}
	case "sessionId":
		if !w.seenSession {
			w.seenSession = true
			if t.Kind == jsonwalk.String {
				w.session, w.sessionOK = w.decode(t, true), true
			}
		}
	}
}

// decode returns a string's or key's text as gjson decodes it. keep: the
// text must outlive the token (else it may be in a walker's or a level's
// buffer).
func (w *fastWalk) decode(t *jsonwalk.Token, keep bool) string {
	raw := t.Raw()
	inner := raw[1 : len(raw)-1]
	if !t.Escaped() || bytes.IndexByte(inner, '\\') < 0 {
		// No escape: gjson's text is the content as it is (invalid
		// UTF-8 too).
		return bstr(inner)
	}
	if utf8.Valid(inner) {
		// jsonwalk's decoding, which is gjson's but where the content
		// is not UTF-8.
		if keep {
			return string(t.Text())
		}
		return bstr(t.Text())
	}
	if keep {
		return string(gjsonDecode(nil, inner))
	}
	w.bufs[w.level] = gjsonDecode(w.bufs[w.level][:0], inner)
	return bstr(w.bufs[w.level])
}

// inBuffer reports whether decode(t, false) is in a buffer that is
// reused (not the line's bytes or a string of its own).
func (w *fastWalk) inBuffer(t *jsonwalk.Token) bool {
	raw := t.Raw()
	return w.moving[w.level] || t.Escaped() && bytes.IndexByte(raw[1:len(raw)-1], '\\') >= 0
}

func (w *fastWalk) key(t *jsonwalk.Token) error {
	ls := w.ls
	ks := w.decode(t, true)
	fr := &w.frames[len(w.frames)-1]
	w.found = false
	ls.check(ks, w.keyHit, &w.hits)
	fr.key, fr.secret = ks, w.found
	return nil
}

// onKeyHit reports a hit in a key (checkKey's finding): it points at the
// object, whose own step is the frame below the top one.
func (w *fastWalk) onKeyHit(h hit) {
	w.found = true
	w.hits++
	d := "key"
	if h.via != "" {
		d += "+" + h.via
	}
	w.ls.out.find(Finding{Line: w.n, Rule: h.rule, Pointer: w.ls.join(w.frames[:len(w.frames)-1]), Decoded: d})
}

func (w *fastWalk) onTextHit(h hit) {
	w.hits++
	w.ls.out.find(Finding{Line: w.n, Rule: h.rule, Pointer: w.pointer(), Decoded: h.via})
}

func (w *fastWalk) str(t *jsonwalk.Token, depth int) error {
	ls := w.ls
	s := w.decode(t, false)
	buffered := w.inBuffer(t)
	n := w.n
	if parent := &w.frames[depth-1]; !parent.arr && !parent.root {
		// A member's value: the credential-assignment check of its key.
		if ls.credentialName(parent.key) && machineMade(s) && !ls.m.allowed(s) && !ls.s.disabled[RuleCredential] {
			ls.out.find(Finding{Line: n, Rule: RuleCredential, Pointer: w.pointer()})
		}
	}
	if w.inPayload && w.level == 0 && depth-1 <= 64 {
		// learnIDs: under the key of the nearest object in the payload.
		key := ""
		for i := depth - 1; i >= 1; i-- {
			if !w.frames[i].arr {
				key = w.frames[i].key
				break
			}
		}
		if idKeys[key] && volatileID(key, s) {
			v := s
			if buffered {
				v = strings.Clone(s)
			}
			w.idVals = append(w.idVals, v)
		}
	}
	stream := ""
	if w.level == 0 && depth == 1 && !w.frames[0].arr && !w.frames[0].secret && w.frames[0].key == "payload" {
		stream = "payload"
	}
	ls.check(s, w.textHit, &w.hits)
	x := Finding{Line: n, Rule: redact.RulePrivateKey, Decoded: "key-body"}
	if stream != "" {
		text := s
		if buffered {
			text = strings.Clone(s)
		}
		x.Pointer = w.pointer()
		ls.out.addPEM(x, text, stream, pemMarker(s))
	} else if pemMarker(s) {
		var pem pemState
		if pem.feed(s) && !ls.s.disabled[x.Rule] {
			x.Pointer = w.pointer()
			ls.out.find(x)
		}
	}
	if o := ls.out; len(s) >= 6 {
		start := len(o.cands)
		o.cands = idCands(o.cands, s)
		if c := o.cands[start:len(o.cands):len(o.cands)]; len(c) > 0 {
			if buffered {
				// The tokens are copied (one copy of the text for all of
				// them, unless the text is long).
				if len(s) <= 4<<10 {
					cp := strings.Clone(s)
					base := unsafe.StringData(s)
					for i := range c {
						off := int(uintptr(unsafe.Pointer(unsafe.StringData(c[i]))) - uintptr(unsafe.Pointer(base)))
						c[i] = cp[off : off+len(c[i])]
					}
				} else {
					// One buffer for them all (a long tool output can
					// hold a hundred thousand).
					n := 0
					for _, x := range c {
						n += len(x)
					}
					arena := make([]byte, 0, n)
					for i := range c {
						start := len(arena)
						arena = append(arena, c[i]...)
						c[i] = bstr(arena[start:len(arena):len(arena)])
					}
				}
			}
			o.addIDs(Finding{Line: n, Rule: RuleVolatileID, Pointer: w.pointer()}, start)
		}
	}
	return w.held(s, buffered)
}

// held walks the JSON s holds, as heldJSON finds it.
func (w *fastWalk) held(s string, buffered bool) error {
	tt := heldText(s)
	if len(tt) < 2 || tt[0] != '{' && tt[0] != '[' {
		return nil
	}
	o := w.ls.out
	mark, height := len(o.ops), len(w.frames)
	w.frames = append(w.frames, frame{root: true})
	w.level++
	err := w.walk(unsafe.Slice(unsafe.StringData(tt), len(tt)), buffered)
	w.level--
	w.frames = w.frames[:height]
	w.ptrOK = false
	if err != nil && errors.Is(err, jsonwalk.ErrSyntax) {
		// Not JSON after all: nothing of it counts.
		o.ops = o.ops[:mark]
		return nil
	}
	return err
}

// heldText is the text heldJSON parses, before its test.
func heldText(s string) string {
	t := strings.TrimSpace(s)
	if rest, ok := strings.CutPrefix(t, "data:"); ok {
		t = strings.TrimSpace(rest)
	} else if strings.HasPrefix(t, "[") {
		if i := strings.Index(t, "] "); i > 0 && !strings.Contains(t[:i], " ") {
			t = strings.TrimSpace(t[i+2:])
		}
	}
	return t
}

// gjsonDecode appends the decoding of a JSON string's content as gjson
// decodes it (its unescape): escapes resolved, a surrogate pair to its
// rune, a lone surrogate to U+FFFD, every other byte (invalid UTF-8 too)
// as it is. The content is valid (Walk checked it).
func gjsonDecode(dst, s []byte) []byte {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' {
			j := i + 1
			for j < len(s) && s[j] != '\\' {
				j++
			}
			dst = append(dst, s[i:j]...)
			i = j - 1
			continue
		}
		i++
		if i >= len(s) {
			return dst
		}
		switch s[i] {
		case '\\', '/', '"':
			dst = append(dst, s[i])
		case 'b':
			dst = append(dst, '\b')
		case 'f':
			dst = append(dst, '\f')
		case 'n':
			dst = append(dst, '\n')
		case 'r':
			dst = append(dst, '\r')
		case 't':
			dst = append(dst, '\t')
		case 'u':
			if i+5 > len(s) {
				return dst
			}
			r := hexRune(s[i+1:])
			i += 5
			if r >= 0xD800 && r < 0xDC00 && len(s)-i >= 6 && s[i] == '\\' && s[i+1] == 'u' {
				if r2 := hexRune(s[i+2:]); r2 >= 0xDC00 && r2 < 0xE000 {
					r = utf16.DecodeRune(r, r2)
					i += 6
				}
			}
			dst = utf8.AppendRune(dst, r)
			i--
		default:
			return dst
		}
	}
	return dst
}

func hexRune(s []byte) rune {
	v, _ := hexN(bstr(s[:4]))
	return rune(v)
}
