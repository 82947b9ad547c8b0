package jsonwalk

import (
	"encoding/binary"
	"errors"
	"fmt"
	"unicode/utf8"
)

// MaxDepth is the deepest nesting Walk follows: a value inside more than
// MaxDepth objects and arrays is an error (ErrDepth), so that a hostile
// line costs bounded stack.
const MaxDepth = 512

var (
	// ErrSyntax is wrapped by the error Walk returns for input that is not
	// one valid JSON value (RFC 8259; invalid UTF-8 inside strings is
	// accepted, as encoding/json accepts it).
	ErrSyntax = errors.New("not a valid JSON value")
	// ErrDepth is wrapped by the error Walk returns for a value nested
	// deeper than MaxDepth.
	ErrDepth = errors.New("JSON value nested deeper than jsonwalk.MaxDepth")
)

// Kind is what a token is.
type Kind uint8

// Token kinds, in the order a Visitor may see them.
const (
	BeginObject Kind = iota + 1 // "{": Path is the object's own path
	EndObject                   // "}"
	BeginArray                  // "["
	EndArray                    // "]"
	Key                         // an object key: Path is the object's path, without this key
	String                      // a string value: Path ends with its key or index
	Number                      // a number: Path ends with its key or index
	Literal                     // true, false or null
)

// Step is one element of a path: an object key (decoded, as rewritten by
// the Visitor if it rewrote it; Index is -1) or an array index (Key nil).
type Step struct {
	Key   []byte
	Index int
}

// Visitor is called with every token of a value, in input order. The token
// and the path are valid only during the call. An error stops the walk and
// is returned by Walk as it is.
type Visitor interface {
	Visit(w *Walker, t *Token) error
}

// VisitorFunc adapts a function to Visitor.
type VisitorFunc func(w *Walker, t *Token) error

// Visit calls f.
func (f VisitorFunc) Visit(w *Walker, t *Token) error { return f(w, t) }

// Walker walks JSON values. Its zero value is ready; reuse one for many
// values to reuse its buffers. It is not safe for concurrent use.
type Walker struct {
	in   []byte
	pos  int
	v    Visitor
	path []Step
	// arena holds the keys of path that do not alias in (decoded or
	// rewritten); onArena marks them, so they can be re-pointed when the
	// arena grows.
	arena   []byte
	onArena []bool
	out     []byte
	last    int // in[:last] has been copied to out (once out is in use)
	changed bool
	tok     Token
	dec     []byte
	pos2    []int
}

// Token is the token a Visitor is called with.
type Token struct {
	Kind    Kind
	raw     []byte
	off     int
	text    []byte
	exact   bool // text is raw's content byte for byte (no escape, valid UTF-8)
	splices []splice
	repl    []byte
	replace bool
}

type splice struct {
	start, end int
	repl       []byte
}

// Raw is the token's bytes in the input (a string with its quotes).
func (t *Token) Raw() []byte { return t.raw }

// Offset is where the token starts in the input.
func (t *Token) Offset() int { return t.off }

// Text is a string's or key's decoded text, and Raw for other kinds. For
// strings it aliases the input when the string holds no escape, and the
// walker's buffer otherwise: copy it to keep it past the Visit call.
func (t *Token) Text() []byte {
	if t.Kind == Key || t.Kind == String {
		return t.text
	}
	return t.raw
}

// Escaped reports whether a string's raw content differs from its Text
// (it holds escapes, or invalid UTF-8 that decoded to U+FFFD).
func (t *Token) Escaped() bool { return !t.exact }

// Splice replaces Text()[start:end] of a string or key with repl in the
// output; the text around it keeps its original spelling (escapes
// included). repl is written as the content of a JSON string: quote,
// backslash and control bytes are escaped, everything else is copied. A
// bound inside a decoded character (a multi-byte escape or rune) moves to
// that character's start. Splices of one token must be in ascending,
// non-overlapping order; repl must stay unchanged until Visit returns.
// Splice panics on a token that is not a string or key.
func (t *Token) Splice(start, end int, repl []byte) {
	if t.Kind != Key && t.Kind != String {
		panic("jsonwalk: Splice on a token that is not a string")
	}
	if start < 0 || end < start || end > len(t.text) ||
		len(t.splices) > 0 && start < t.splices[len(t.splices)-1].end {
		panic(fmt.Sprintf("jsonwalk: Splice(%d, %d) out of order or range (text %d bytes)", start, end, len(t.text)))
	}
	t.splices = append(t.splices, splice{start, end, repl})
}

// Spliced reports whether Splice was called on the token during this
// visit (by this Visitor or one before it in a chain).
func (t *Token) Spliced() bool { return len(t.splices) > 0 }

// AppendSpliced appends to dst the text of a string or key as a later
// walk of the output would decode it: the splices planned so far applied
// to the raw content (the rest keeping its escapes, each replacement
// escaped as the output writes it), then decoded. Without splices it is
// Text. A Visitor that runs after another one in the same walk uses it to
// see the string as if the other's rewrite had been a walk of its own.
func (t *Token) AppendSpliced(dst []byte) []byte {
	if len(t.splices) == 0 {
		return append(dst, t.text...)
	}
	if t.exact && t.plainSplices() {
		// The raw content is the text, and each piece of it and each
		// replacement decodes to itself: the splices applied to the text.
		last := 0
		for _, sp := range t.splices {
			dst = append(dst, t.text[last:sp.start]...)
			dst = append(dst, sp.repl...)
			last = sp.end
		}
		return append(dst, t.text[last:]...)
	}
	inner := t.raw[1 : len(t.raw)-1]
	pos := make([]int, 0, 2*len(t.splices))
	for _, sp := range t.splices {
		pos = append(pos, sp.start, sp.end)
	}
	if !t.exact {
		rawOffsetsLen(inner, len(t.text), pos)
	}
	raw := make([]byte, 0, len(inner)+16)
	last := 0
	for k, sp := range t.splices {
		raw = append(raw, inner[last:pos[2*k]]...)
		raw = AppendEscaped(raw, sp.repl)
		last = pos[2*k+1]
	}
	raw = append(raw, inner[last:]...)
	return AppendDecoded(dst, raw)
}

// plainSplices reports whether every splice has ASCII text in place of
// whole characters: bounds at rune starts of Text, so that no piece of
// the text left around them ends or starts inside a UTF-8 sequence.
func (t *Token) plainSplices() bool {
	for _, sp := range t.splices {
		if sp.start < len(t.text) && !utf8.RuneStart(t.text[sp.start]) ||
			sp.end < len(t.text) && !utf8.RuneStart(t.text[sp.end]) {
			return false
		}
		for _, c := range sp.repl {
			if c >= utf8.RuneSelf {
				return false
			}
		}
	}
	return true
}

// Replace replaces the whole token (a string or key with its quotes, a
// number, a literal) with raw, which must be valid JSON of a kind allowed
// there; it overrides any Splice. For a key, raw must be a string literal
// and the path holds its decoding. raw must stay unchanged until Visit
// returns. Replace panics on an object or array delimiter.
func (t *Token) Replace(raw []byte) {
	if t.Kind < Key {
		panic("jsonwalk: Replace on an object or array delimiter")
	}
	t.repl, t.replace = raw, true
}

// Path is the path to the current token (see Kind for which). It is valid
// only during the Visit call and must not be modified.
func (w *Walker) Path() []Step { return w.path }

// Walk walks in, which must hold one JSON value with optional whitespace
// around it, calling v for every token. It returns the input with the
// Visitor's rewrites applied, and whether there were any: in itself when
// not, and otherwise the Walker's output buffer, valid until the next Walk.
// On an error (wrapping ErrSyntax, ErrDepth, or the Visitor's own) the
// output is nil.
func (w *Walker) Walk(in []byte, v Visitor) (out []byte, changed bool, err error) {
	w.in, w.pos, w.v = in, 0, v
	w.path, w.arena, w.onArena = w.path[:0], w.arena[:0], w.onArena[:0]
	w.out, w.last, w.changed = w.out[:0], 0, false
	defer w.done()
	w.ws()
	if err := w.value(0); err != nil {
		return nil, false, err
	}
	w.ws()
	if w.pos != len(in) {
		return nil, false, w.syntax("data after the value")
	}
	if !w.changed {
		return in, false, nil
	}
	w.out = append(w.out, in[w.last:]...)
	return w.out, true, nil
}

// maxKeptBuf is the largest decoding buffer a Walker keeps between
// walks: a long string's (a tool output of megabytes) is let go, so that
// a pooled Walker does not keep it live for the rest of a run.
const maxKeptBuf = 1 << 20

func (w *Walker) done() {
	w.in, w.v = nil, nil
	if cap(w.dec) > maxKeptBuf {
		w.dec = nil
	}
}

func (w *Walker) syntax(what string) error {
	return fmt.Errorf("%w: %s at byte %d", ErrSyntax, what, w.pos)
}

func (w *Walker) ws() {
	for w.pos < len(w.in) {
		switch w.in[w.pos] {
		case ' ', '\t', '\n', '\r':
			w.pos++
		default:
			return
		}
	}
}

func (w *Walker) value(depth int) error {
	if depth > MaxDepth {
		return fmt.Errorf("%w (at byte %d)", ErrDepth, w.pos)
	}
	if w.pos >= len(w.in) {
		return w.syntax("unexpected end")
	}
	switch c := w.in[w.pos]; {
	case c == '{':
		return w.object(depth)
	case c == '[':
		return w.array(depth)
	case c == '"':
		return w.str(String)
	case c == '-' || c >= '0' && c <= '9':
		return w.number()
	case c == 't':
		return w.literal("true")
	case c == 'f':
		return w.literal("false")
	case c == 'n':
		return w.literal("null")
	}
	return w.syntax("unexpected byte")
}

func (w *Walker) delim(k Kind) error {
	w.tok = Token{Kind: k, raw: w.in[w.pos : w.pos+1], off: w.pos, splices: w.tok.splices[:0]}
	w.pos++
	return w.v.Visit(w, &w.tok)
}

func (w *Walker) object(depth int) error {
	if err := w.delim(BeginObject); err != nil {
		return err
	}
	w.ws()
	if w.pos < len(w.in) && w.in[w.pos] == '}' {
		return w.delim(EndObject)
	}
	for {
		if w.pos >= len(w.in) || w.in[w.pos] != '"' {
			return w.syntax("expected a key")
		}
		if err := w.str(Key); err != nil {
			return err
		}
		w.ws()
		if w.pos >= len(w.in) || w.in[w.pos] != ':' {
			w.pop()
			return w.syntax("expected ':'")
		}
		w.pos++
		w.ws()
		err := w.value(depth + 1)
		w.pop()
		if err != nil {
			return err
		}
		w.ws()
		if w.pos >= len(w.in) {
			return w.syntax("unterminated object")
		}
		switch w.in[w.pos] {
		case ',':
			w.pos++
			w.ws()
		case '}':
			return w.delim(EndObject)
		default:
			return w.syntax("expected ',' or '}'")
		}
	}
}

func (w *Walker) array(depth int) error {
	if err := w.delim(BeginArray); err != nil {
		return err
	}
	w.ws()
	if w.pos < len(w.in) && w.in[w.pos] == ']' {
		return w.delim(EndArray)
	}
	for i := 0; ; i++ {
		w.path = append(w.path, Step{Index: i})
		w.onArena = append(w.onArena, false)
		err := w.value(depth + 1)
		w.pop()
		if err != nil {
			return err
		}
		w.ws()
		if w.pos >= len(w.in) {
			return w.syntax("unterminated array")
		}
		switch w.in[w.pos] {
		case ',':
			w.pos++
			w.ws()
		case ']':
			return w.delim(EndArray)
		default:
			return w.syntax("expected ',' or ']'")
		}
	}
}

func (w *Walker) literal(lit string) error {
	if len(w.in)-w.pos < len(lit) || string(w.in[w.pos:w.pos+len(lit)]) != lit {
		return w.syntax("invalid literal")
	}
	return w.scalar(Literal, w.pos+len(lit))
}

func (w *Walker) number() error {
	in, i := w.in, w.pos
	if in[i] == '-' {
		i++
	}
	switch {
	case i < len(in) && in[i] == '0':
		i++
	case i < len(in) && in[i] >= '1' && in[i] <= '9':
		i = digits(in, i)
	default:
		return w.syntax("invalid number")
	}
	if i < len(in) && in[i] == '.' {
		j := digits(in, i+1)
		if j == i+1 {
			return w.syntax("invalid number")
		}
		i = j
	}
	if i < len(in) && (in[i] == 'e' || in[i] == 'E') {
		i++
		if i < len(in) && (in[i] == '+' || in[i] == '-') {
			i++
		}
		j := digits(in, i)
		if j == i {
			return w.syntax("invalid number")
		}
		i = j
	}
	return w.scalar(Number, i)
}

func digits(in []byte, i int) int {
	for i < len(in) && in[i] >= '0' && in[i] <= '9' {
		i++
	}
	return i
}

// scalar visits the number or literal in[w.pos:end].
func (w *Walker) scalar(k Kind, end int) error {
	w.tok = Token{Kind: k, raw: w.in[w.pos:end], off: w.pos, splices: w.tok.splices[:0]}
	w.pos = end
	if err := w.v.Visit(w, &w.tok); err != nil {
		return err
	}
	if w.tok.replace {
		w.emit(w.tok.off, end, w.tok.repl)
	}
	return nil
}

const (
	lo8 = 0x0101010101010101
	hi8 = 0x8080808080808080
)

// strClass: 0 for bytes a string holds as they are, 1 for '"', 2 for '\\',
// 3 for control bytes, 4 for bytes of multi-byte UTF-8.
var strClass = func() (t [256]uint8) {
	for c := range 0x20 {
		t[c] = 3
	}
	t['"'], t['\\'] = 1, 2
	for c := 0x80; c < 256; c++ {
		t[c] = 4
	}
	return t
}()

// str reads the string at w.pos, visits it and, for a key, pushes its
// step onto the path.
func (w *Walker) str(k Kind) error {
	in := w.in
	s := w.pos
	i := s + 1
	escaped, nonASCII := false, false
	var high uint64
scan:
	for {
		// Eight bytes at a time while none is a quote, a backslash or a
		// control byte (bit tricks: a byte of v is zero iff the high bit
		// of (v-1)&^v is set; likewise x-0x20 for bytes below 0x20).
		for i+8 <= len(in) {
			x := binary.LittleEndian.Uint64(in[i:])
			q, b := x^(lo8*'"'), x^(lo8*'\\')
			if ((q-lo8)&^q|(b-lo8)&^b|(x-lo8*0x20)&^x)&hi8 != 0 {
				break
			}
			high |= x
			i += 8
		}
		for i < len(in) && strClass[in[i]] == 0 {
			i++
		}
		if i >= len(in) {
			return w.syntax("unterminated string")
		}
		switch strClass[in[i]] {
		case 1:
			break scan
		case 2:
			if i+1 >= len(in) {
				return w.syntax("unterminated string")
			}
			escaped = true
			switch in[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(in) || !isHex(in[i+2]) || !isHex(in[i+3]) || !isHex(in[i+4]) || !isHex(in[i+5]) {
					w.pos = i
					return w.syntax("invalid \\u escape")
				}
				i += 6
			default:
				w.pos = i
				return w.syntax("invalid escape")
			}
		case 3:
			w.pos = i
			return w.syntax("control byte in string")
		default:
			nonASCII = true
			i++
		}
	}
	nonASCII = nonASCII || high&hi8 != 0
	inner := in[s+1 : i]
	w.pos = i + 1
	t := &w.tok
	*t = Token{Kind: k, raw: in[s : i+1], off: s, splices: t.splices[:0]}
	if !escaped && (!nonASCII || utf8.Valid(inner)) {
		t.text, t.exact = inner, true
	} else {
		if cap(w.dec) < len(inner) {
			// The decoding is at most as long as the content but for
			// invalid UTF-8: one allocation for a long string instead
			// of a doubling series.
			w.dec = make([]byte, 0, len(inner))
		}
		w.dec = AppendDecoded(w.dec[:0], inner)
		t.text = w.dec
	}
	if err := w.v.Visit(w, t); err != nil {
		return err
	}
	switch {
	case t.replace:
		w.emit(s, i+1, t.repl)
	case len(t.splices) > 0:
		w.applySplices(s+1, inner, t)
	}
	if k == Key {
		w.pushKey(t, inner)
	}
	return nil
}

// emit writes repl in place of in[start:end].
func (w *Walker) emit(start, end int, repl []byte) {
	w.out = append(w.out, w.in[w.last:start]...)
	w.out = append(w.out, repl...)
	w.last = end
	w.changed = true
}

// applySplices writes the splices of t, whose content inner starts at
// base in the input.
func (w *Walker) applySplices(base int, inner []byte, t *Token) {
	pos := w.pos2[:0]
	for _, sp := range t.splices {
		pos = append(pos, sp.start, sp.end)
	}
	if !t.exact {
		rawOffsetsLen(inner, len(t.text), pos)
	}
	w.pos2 = pos
	for k, sp := range t.splices {
		w.out = append(w.out, w.in[w.last:base+pos[2*k]]...)
		w.out = AppendEscaped(w.out, sp.repl)
		w.last = base + pos[2*k+1]
	}
	w.changed = true
}

// pushKey pushes the step of the key t: its text with the Visitor's
// rewrite applied.
func (w *Walker) pushKey(t *Token, inner []byte) {
	if !t.replace && len(t.splices) == 0 && t.exact {
		w.path = append(w.path, Step{Key: inner, Index: -1})
		w.onArena = append(w.onArena, false)
		return
	}
	start := len(w.arena)
	old := cap(w.arena)
	switch {
	case t.replace:
		r := t.repl
		if len(r) >= 2 && r[0] == '"' && r[len(r)-1] == '"' {
			r = r[1 : len(r)-1]
		}
		w.arena = AppendDecoded(w.arena, r)
	default:
		last := 0
		for _, sp := range t.splices {
			w.arena = append(w.arena, t.text[last:sp.start]...)
			w.arena = append(w.arena, sp.repl...)
			last = sp.end
		}
		w.arena = append(w.arena, t.text[last:]...)
	}
	if cap(w.arena) != old {
		w.repoint()
	}
	w.path = append(w.path, Step{Key: w.arena[start:len(w.arena):len(w.arena)], Index: -1})
	w.onArena = append(w.onArena, true)
}

// repoint makes the keys on the arena point into its current array after
// it grew; they lie on it in path order.
func (w *Walker) repoint() {
	off := 0
	for i, on := range w.onArena {
		if on {
			n := len(w.path[i].Key)
			w.path[i].Key = w.arena[off : off+n : off+n]
			off += n
		}
	}
}

func (w *Walker) pop() {
	n := len(w.path) - 1
	if w.onArena[n] {
		w.arena = w.arena[:len(w.arena)-len(w.path[n].Key)]
	}
	w.path, w.onArena = w.path[:n], w.onArena[:n]
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}
