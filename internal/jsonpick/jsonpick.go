// Package jsonpick reads the few fields a normalizer needs from a provider
// line in one pass: a validator that accepts exactly what gjson.ValidBytes
// accepts, and readers that return the same gjson.Result as Get or Array
// for plain member names, walking an object once instead of once per field.
// Strings without escapes are sliced, not copied; a long string can be cut
// to the length an event keeps without decoding the rest.
//
// It is shared by every normalize/<provider> package (which cannot import
// each other). It does not understand any provider's format and does not
// take gjson paths: callers that need a dotted path use gjson for it.
package jsonpick

import (
	"encoding/binary"
	"math/bits"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/evcap/evcap/internal/textcut"
	"github.com/tidwall/gjson"
)

// Pick reads several members of the JSON object obj in one pass over it:
// out[i] becomes what obj.Get(keys[i]) gives, the value of the first
// member named keys[i] (an empty Result when there is none, or when obj is
// not an object). Keys are plain member names, not gjson paths. obj must
// come from a line that passed gjson.ValidBytes.
//
// Each obj.Get walks the object from its start and parses every member
// before the one it wants; pick walks it once, skips the values it does
// not want with bytes.IndexByte over their strings, and parses only the
// values it returns.
func Pick(obj gjson.Result, keys []string, out []gjson.Result) {
	clear(out)
	if !obj.IsObject() {
		return
	}
	left := len(keys)
	s := obj.Raw
	i := skipSpace(s, 0) + 1
	for left > 0 {
		key, val, next, ok := member(s, i)
		if !ok {
			return
		}
		for k, want := range keys {
			if len(key) == len(want) && key == want && !out[k].Exists() {
				out[k] = ParseValue(val)
				left--
				break
			}
		}
		i = next
	}
}

// PickRaw is Pick that leaves the values unparsed: out[i] becomes the raw
// text of the first member of obj named keys[i], "" when there is none
// (or obj is not an object). For a value that may be long and is only
// cut (CutString), or skipped, so it is neither decoded nor walked again.
func PickRaw(obj gjson.Result, keys []string, out []string) {
	clear(out)
	if !obj.IsObject() {
		return
	}
	left := len(keys)
	s := obj.Raw
	i := skipSpace(s, 0) + 1
	for left > 0 {
		key, val, next, ok := member(s, i)
		if !ok {
			return
		}
		for k, want := range keys {
			if len(key) == len(want) && key == want && out[k] == "" {
				out[k] = val
				left--
				break
			}
		}
		i = next
	}
}

// Each calls fn with every element of the array r, as r.Array() lists
// them, without making the list or parsing an element twice. r must come
// from a line that passed gjson.ValidBytes.
func Each(r gjson.Result, fn func(gjson.Result)) {
	if !r.IsArray() {
		for _, x := range r.Array() {
			fn(x)
		}
		return
	}
	eachElement(r.Raw, skipValue, fn)
}

// eachElement calls fn with every element of the array text s (valid,
// from an array Result), finding each element's end with end(s, i) for
// the element that starts at s[i]; a result not past i stops the walk.
func eachElement(s string, end func(s string, i int) int, fn func(gjson.Result)) {
	i := 1
	for {
		i = skipSpace(s, i)
		if i >= len(s) || s[i] == ']' {
			return
		}
		if s[i] == ',' {
			i++
			continue
		}
		e := end(s, i)
		if e <= i {
			return
		}
		fn(ParseValue(s[i:e]))
		i = e
	}
}

// EachPickRaw is Each with PickRaw(x, keys, out) done on each element x
// before fn(x) is called, in one walk of each element instead of two
// (Each skips an element to find its end, PickRaw walks it again): for
// arrays whose elements hold long values, such as a user line's tool
// results. out holds the element's members only during fn.
func EachPickRaw(r gjson.Result, keys []string, out []string, fn func(gjson.Result)) {
	if !r.IsArray() {
		Each(r, func(x gjson.Result) {
			PickRaw(x, keys, out)
			fn(x)
		})
		return
	}
	eachElement(r.Raw, func(s string, i int) int {
		if s[i] == '{' {
			return pickRawObject(s, i, keys, out)
		}
		clear(out)
		return skipValue(s, i)
	}, fn)
}

// pickRawObject is PickRaw on the object that opens at s[i], walked to
// its end: it returns the index after the object, or -1 on text that is
// not valid.
func pickRawObject(s string, i int, keys, out []string) int {
	clear(out)
	i++
	for {
		key, val, next, ok := member(s, i)
		if !ok {
			if j := skipSpace(s, i); j < len(s) && s[j] == '}' {
				return j + 1
			}
			return -1
		}
		for k, want := range keys {
			if len(key) == len(want) && key == want && out[k] == "" {
				out[k] = val
				break
			}
		}
		i = next
	}
}

// Members calls fn with the key (unescaped) and the raw value of each
// member of the valid JSON object text obj, in order, until fn returns
// false.
func Members(obj string, fn func(key, val string) bool) {
	i := skipSpace(obj, 0)
	if i >= len(obj) || obj[i] != '{' {
		return
	}
	i++
	for {
		key, val, next, ok := member(obj, i)
		if !ok || !fn(key, val) {
			return
		}
		i = next
	}
}

// Nested names the members to read in one walk of an object: Keys at
// its level and, for each Keys[i] whose Sub[i] is set, the members of that
// member's value (when it is an object) as Sub[i] says. PickNested fills
// Out: Out[i] is what Pick gives for Keys[i], and Sub[i].Out what Pick
// gives on Out[i]. Reading a member and then members of its value with
// Pick walks the value twice (once to skip it, once to read it), and a
// value nested in that one three times; PickNested walks each once. A
// Nested is reused from line to line by one goroutine.
type Nested struct {
	Keys []string
	Sub  []*Nested
	Out  []gjson.Result
	// found has bit j set when Out[j] holds a value (for the first 64
	// keys; Out[j].Exists() says it for any others), and walked is set
	// once a walk may have set any: reset clears only those, where
	// clearing every Out of a line's Nesteds (twenty 80-byte Results,
	// with write barriers while the GC runs) was a tenth of a walk.
	found  uint64
	walked bool
	// subs has bit j set when Sub[j] was walked since the last reset.
	subs uint64
	// Enough, when set on the Nested PickNested is given, is asked after
	// each top-level member read: true ends the walk there, leaving the
	// members after it unread. A normalizer that knows, from what it has
	// read, that no later member matters for this line (a tool result's
	// second copy of its output after the ones it reads) sets it.
	Enough func() bool
	// byKey has, for each hash of a key (keyHash), a bit for every
	// Keys[j] with that hash (for up to 64 keys; nil until the first
	// walk), so that a member's key is compared only with the keys it
	// may be.
	byKey *[64]uint64
}

// keyHash picks a key's slot in Nested.byKey from its length and first
// byte, which tell apart the members of the lines normalizers read.
func keyHash(key string) int {
	if key == "" {
		return 0
	}
	return (len(key)*7 + int(key[0])) & 63
}

// match returns the index of the key that the member key fills (the
// first Keys[j] equal to it whose value is not set yet), or -1.
func (t *Nested) match(key string) int {
	if len(t.Keys) > 64 {
		for j, want := range t.Keys {
			if key == want && !t.has(j) {
				return j
			}
		}
		return -1
	}
	if t.byKey == nil {
		t.byKey = new([64]uint64)
		for j, k := range t.Keys {
			t.byKey[keyHash(k)] |= 1 << j
		}
	}
	for m := t.byKey[keyHash(key)]; m != 0; m &= m - 1 {
		j := bits.TrailingZeros64(m)
		if t.Keys[j] == key && t.found>>j&1 == 0 {
			return j
		}
	}
	return -1
}

// NewNested returns a Nested for keys with no Sub set.
func NewNested(keys []string) *Nested {
	return &Nested{Keys: keys, Sub: make([]*Nested, len(keys)), Out: make([]gjson.Result, len(keys))}
}

// PickNested reads the members t names from the object obj (from a line
// that passed Valid) into t's Out, and those of its Subs.
func PickNested(obj gjson.Result, t *Nested) {
	t.reset()
	if !obj.IsObject() {
		return
	}
	s := obj.Raw
	t.walk(s, skipSpace(s, 0), true)
}

func (t *Nested) reset() {
	if !t.walked {
		return
	}
	t.walked = false
	if len(t.Out) > 64 {
		clear(t.Out)
	}
	for f := t.found; f != 0; f &= f - 1 {
		t.Out[bits.TrailingZeros64(f)] = gjson.Result{}
	}
	t.found = 0
	if len(t.Sub) > 64 {
		for _, sub := range t.Sub {
			if sub != nil {
				sub.reset()
			}
		}
		return
	}
	for m := t.subs; m != 0; m &= m - 1 {
		t.Sub[bits.TrailingZeros64(m)].reset()
	}
	t.subs = 0
}

// has reports whether Out[j] holds a value.
func (t *Nested) has(j int) bool {
	if j < 64 {
		return t.found>>j&1 != 0
	}
	return t.Out[j].Exists()
}

// set stores the value of Keys[j].
func (t *Nested) set(j int, v gjson.Result) {
	t.Out[j] = v
	if j < 64 {
		t.found |= 1 << j
	}
}

// walk reads the members of the object that opens at s[i] and returns
// the index after it, or -1 on text that is not valid. At the top level
// (top) it stops as soon as every key is found, as Pick does, and then
// returns where it stopped.
func (t *Nested) walk(s string, i int, top bool) int {
	left := len(t.Keys)
	t.walked = true
	i++
	for {
		i = skipSpace(s, i)
		if i < len(s) && s[i] == ',' {
			i = skipSpace(s, i+1)
		}
		if i >= len(s) {
			return -1
		}
		if s[i] == '}' {
			return i + 1
		}
		key, vi, ok := memberKey(s, i)
		if !ok {
			return -1
		}
		k := t.match(key)
		var end int
		if k >= 0 && t.Sub[k] != nil && vi < len(s) && s[vi] == '{' {
			if k < 64 {
				t.subs |= 1 << k
			}
			if end = t.Sub[k].walk(s, vi, false); end < 0 {
				return -1
			}
			t.set(k, gjson.Result{Type: gjson.JSON, Raw: s[vi:end]})
		} else {
			if end = skipValue(s, vi); end <= vi {
				return -1
			}
			if k >= 0 {
				t.set(k, ParseValue(s[vi:end]))
			}
		}
		if k >= 0 && top {
			if left--; left == 0 || t.Enough != nil && t.Enough() {
				return end
			}
		}
		i = end
	}
}

// member reads the object member at obj[i:] (after the opening brace or
// the previous member): its key (unescaped), its raw value and the index
// after it; false at the closing brace, or on text that is not valid.
func member(obj string, i int) (key, val string, next int, ok bool) {
	i = skipSpace(obj, i)
	if i < len(obj) && obj[i] == ',' {
		i = skipSpace(obj, i+1)
	}
	key, i, ok = memberKey(obj, i)
	if !ok {
		return "", "", 0, false
	}
	end := skipValue(obj, i)
	if end <= i {
		return "", "", 0, false
	}
	return key, obj[i:end], end, true
}

// memberKey reads the key of the member that starts at obj[i] (its
// opening quote) and returns it unescaped with the index where its value
// starts; false when obj[i] is not a quote ('}', or text that is not
// valid).
func memberKey(obj string, i int) (key string, vi int, ok bool) {
	if i >= len(obj) || obj[i] != '"' {
		return "", 0, false
	}
	kend, esc := skipStringEsc(obj, i)
	if kend < 0 {
		return "", 0, false
	}
	key = obj[i+1 : kend-1]
	if esc {
		key = gjson.Parse(obj[i:kend]).Str
	}
	i = kend
	if i < len(obj) && obj[i] == ':' { // the usual compact form
		i++
	} else {
		i = skipSpace(obj, i)
		if i >= len(obj) || obj[i] != ':' {
			return "", 0, false
		}
		i++
	}
	return key, skipSpace(obj, i), true
}

// skipSpace returns the index of the first byte from i on that is not
// JSON white space.
func skipSpace(s string, i int) int {
	// JSON's white space is all at or below ' ': one test for the usual
	// byte, which is none.
	for i < len(s) && s[i] <= ' ' && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the index just past the string that starts with the
// quote at s[i], or -1 when it does not end.
func skipString(s string, i int) int {
	end, _ := skipStr(s, i, false)
	return end
}

// skipStringEsc is skipString that also says whether the string holds an
// escape (for keys, which are short).
func skipStringEsc(s string, i int) (int, bool) { return skipStr(s, i, true) }

// skipStr is skipString and, when wantEsc, whether the string holds an
// escape (else the second result is unspecified). Most strings (keys, ids, short pieces of text) end within a few
// words, which are tested eight bytes at a time for a quote or a
// backslash; a longer one is left to IndexByte, which is faster over long
// runs but costs a call per quote.
func skipStr(s string, i int, wantEsc bool) (int, bool) {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	j := i + 1
	esc := false
	for n := 0; n < 8 && j+8 <= len(s); n++ {
		w := binary.LittleEndian.Uint64([]byte(s[j : j+8]))
		q, bs := w^(ones*'"'), w^(ones*'\\')
		m := ((q-ones)&^q | (bs-ones)&^bs) & highs
		if m == 0 {
			j += 8
			continue
		}
		// The lowest flagged byte is exact (a borrow only flags bytes
		// above a real match).
		k := j + bits.TrailingZeros64(m)>>3
		if s[k] == '"' {
			return k + 1, esc
		}
		esc = true
		j = k + 2 // past the escaped byte (\uXXXX goes on with hex digits)
	}
	for {
		if j > len(s) {
			return -1, esc // a backslash at the very end: not valid
		}
		k := strings.IndexByte(s[j:], '"')
		if k < 0 {
			return -1, esc
		}
		q := j + k
		bs := 0
		for p := q - 1; p > i && s[p] == '\\'; p-- {
			bs++
		}
		if bs > 0 {
			esc = true
		}
		if bs%2 == 0 {
			if wantEsc && !esc {
				esc = strings.IndexByte(s[i+1:q], '\\') >= 0
			}
			return q + 1, esc
		}
		j = q + 1
	}
}

// skipValue returns the index just past the JSON value that starts at
// s[i], or -1 when it does not end.
func skipValue(s string, i int) int {
	if i >= len(s) {
		return -1
	}
	switch s[i] {
	case '"':
		return skipString(s, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(s); j++ {
			switch s[j] {
			case '"':
				end := skipString(s, j)
				if end < 0 {
					return -1
				}
				j = end - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1
				}
			}
		}
		return -1
	}
	j := i
	for j < len(s) && s[j] != ',' && s[j] != '}' && s[j] != ']' &&
		s[j] != ' ' && s[j] != '\t' && s[j] != '\n' && s[j] != '\r' {
		j++
	}
	return j
}

// ParseValue is gjson.Parse(val) for the raw text val of one value of a
// Valid line; strings, the values normalizers read most, are unescaped
// with bulk copies between escapes.
func ParseValue(val string) gjson.Result {
	if len(val) < 2 || val[0] != '"' {
		// What gjson.Parse gives for a value without white space before
		// it, for the common kinds, without its scan.
		switch {
		case val == "":
		case val[0] == '{' || val[0] == '[':
			return gjson.Result{Type: gjson.JSON, Raw: val}
		case val == "null":
			return gjson.Result{Type: gjson.Null, Raw: val}
		case val == "true":
			return gjson.Result{Type: gjson.True, Raw: val}
		case val == "false":
			return gjson.Result{Type: gjson.False, Raw: val}
		case val[0] >= '0' && val[0] <= '9' && len(val) <= 15:
			// A small integer (an index, a count), exactly a float64:
			// what ParseFloat would give, without it.
			n := 0
			for _, c := range []byte(val) {
				if c < '0' || c > '9' {
					return gjson.Parse(val)
				}
				n = n*10 + int(c-'0')
			}
			return gjson.Result{Type: gjson.Number, Raw: val, Num: float64(n)}
		}
		return gjson.Parse(val)
	}
	body := val[1 : len(val)-1]
	if strings.IndexByte(body, '\\') < 0 {
		return gjson.Result{Type: gjson.String, Raw: val, Str: body}
	}
	return gjson.Result{Type: gjson.String, Raw: val, Str: Unescape(body)}
}

// Unescape decodes the escapes of the body of a valid JSON string as
// gjson does: a \u escape of a lone surrogate becomes U+FFFD.
func Unescape(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for {
		k := strings.IndexByte(s, '\\')
		if k < 0 || k+1 >= len(s) {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:k])
		next := k + 2
		switch s[k+1] {
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'u':
			if k+6 > len(s) {
				return b.String()
			}
			r := hex4(s[k+2 : k+6])
			next = k + 6
			if r >= 0xD800 && r < 0xDC00 && len(s)-next >= 6 && s[next] == '\\' && s[next+1] == 'u' {
				if r2 := hex4(s[next+2 : next+6]); r2 >= 0xDC00 && r2 < 0xE000 {
					r = utf16.DecodeRune(r, r2)
					next += 6
				}
			}
			b.WriteRune(r)
		default: // '"', '\\', '/'
			b.WriteByte(s[k+1])
		}
		s = s[next:]
	}
}

// hex4 reads four hexadecimal digits (a valid line has nothing else there).
func hex4(s string) rune {
	var r rune
	for i := range 4 {
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c -= 'a' - 10
		case c >= 'A' && c <= 'F':
			c -= 'A' - 10
		}
		r = r<<4 | rune(c)
	}
	return r
}

// Valid reports whether line is one JSON value with white space around
// it, as gjson.ValidBytes does (the same grammar, no UTF-8 check), in one
// pass that skips the plain runs of strings eight bytes at a time. It
// keeps the open containers in a slice, not on the call stack, so a line
// of deeply nested brackets cannot exhaust the stack.
func Valid(line []byte) bool {
	var buf [32]byte
	open := buf[:0] // the closing bracket of each open container
	const (
		wantValue = iota
		wantKey
		afterValue
	)
	state := wantValue
	i := 0
	var ok bool
	for {
		i = skipSpaceBytes(line, i)
		switch state {
		case wantValue:
			if i >= len(line) {
				return false
			}
			switch line[i] {
			case '{', '[':
				end := line[i] + 2 // '}' and ']' follow '{' and '[' by two
				j := skipSpaceBytes(line, i+1)
				if j < len(line) && line[j] == end {
					i, state = j+1, afterValue
					continue
				}
				open = append(open, end)
				i = j
				if end == '}' {
					state = wantKey
				}
				continue
			case '"':
				if i, ok = validString(line, i+1); !ok {
					return false
				}
			case 't':
				if i, ok = literal(line, i, "true"); !ok {
					return false
				}
			case 'f':
				if i, ok = literal(line, i, "false"); !ok {
					return false
				}
			case 'n':
				if i, ok = literal(line, i, "null"); !ok {
					return false
				}
			default:
				if i, ok = validNumber(line, i); !ok {
					return false
				}
			}
			state = afterValue
		case wantKey:
			if i >= len(line) || line[i] != '"' {
				return false
			}
			if i, ok = validString(line, i+1); !ok {
				return false
			}
			i = skipSpaceBytes(line, i)
			if i >= len(line) || line[i] != ':' {
				return false
			}
			i++
			state = wantValue
		case afterValue:
			if len(open) == 0 {
				return i == len(line)
			}
			if i >= len(line) {
				return false
			}
			end := open[len(open)-1]
			switch line[i] {
			case ',':
				i++
				state = wantValue
				if end == '}' {
					state = wantKey
				}
			case end:
				open = open[:len(open)-1]
				i++
			default:
				return false
			}
		}
	}
}

// skipSpaceBytes is skipSpace for bytes.
func skipSpaceBytes(s []byte, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') {
		i++
	}
	return i
}

// literal checks that s holds lit at i and returns the index after it.
func literal(s []byte, i int, lit string) (int, bool) {
	if len(s)-i < len(lit) || string(s[i:i+len(lit)]) != lit {
		return i, false
	}
	return i + len(lit), true
}

// validNumber checks the JSON number at s[i] and returns the index after it.
func validNumber(s []byte, i int) (int, bool) {
	if i < len(s) && s[i] == '-' {
		i++
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case i < len(s) && s[i] >= '1' && s[i] <= '9':
		i = digits(s, i)
	default:
		return i, false
	}
	if i < len(s) && s[i] == '.' {
		j := digits(s, i+1)
		if j == i+1 {
			return j, false
		}
		i = j
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		j := digits(s, i)
		if j == i {
			return j, false
		}
		i = j
	}
	return i, true
}

func digits(s []byte, i int) int {
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return i
}

// validString checks the rest of a JSON string whose opening quote is
// before s[i] and returns the index after its closing quote.
func validString(s []byte, i int) (int, bool) {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	for {
		// Skip eight bytes at a time while none is a control byte, a
		// quote or a backslash, and then straight to the first one: the
		// lowest flagged byte of the word is exact (a borrow only flags
		// bytes above a real match).
		for i+8 <= len(s) {
			w := binary.LittleEndian.Uint64(s[i:])
			q, bs := w^(ones*'"'), w^(ones*'\\')
			if m := ((w-ones*0x20)&^w | (q-ones)&^q | (bs-ones)&^bs) & highs; m != 0 {
				i += bits.TrailingZeros64(m) >> 3
				break
			}
			i += 8
		}
		if i >= len(s) {
			return i, false
		}
		// An escape is the usual stop inside text (a newline, a quote),
		// so it is tested first and its kind looked up rather than
		// switched on: each stop is a branch the processor cannot
		// predict, and there is one every few dozen bytes of a tool's
		// output.
		c := s[i]
		if c == '\\' {
			if i+1 >= len(s) {
				return i, false
			}
			switch escapeLen[s[i+1]] {
			case 2:
				i += 2
				continue
			case 6:
				if len(s)-i < 6 || !isHex(s[i+2]) || !isHex(s[i+3]) || !isHex(s[i+4]) || !isHex(s[i+5]) {
					return i, false
				}
				i += 6
				continue
			}
			return i, false
		}
		if c == '"' {
			return i + 1, true
		}
		if c < 0x20 {
			return i, false
		}
		i++
	}
}

// escapeLen is the length of the escape a backslash followed by the byte
// starts: 2, 6 for \u (four hex digits follow), 0 when it is no escape.
var escapeLen = [256]uint8{'"': 2, '\\': 2, '/': 2, 'b': 2, 'f': 2, 'n': 2, 'r': 2, 't': 2, 'u': 6}

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

// RawMember returns the raw text of the first member of the valid JSON
// object text obj named key, and whether there is one; its value is not
// parsed, so a large string costs only the skip.
func RawMember(obj, key string) (string, bool) {
	var raw string
	found := false
	Members(obj, func(k, val string) bool {
		if k == key {
			raw, found = val, true
		}
		return !found
	})

	return raw, found
}

// CutMember returns textcut.Output(s) and len(s) for
// s := obj.Get(key).String() (obj from a valid line), decoding a string
// member only as far as the cut.
func CutMember(obj gjson.Result, key string) (string, int) {
	if !obj.IsObject() {
		return "", 0
	}
	raw, _ := RawMember(obj.Raw, key)
	return CutRaw(raw)
}

// CutRaw is CutMember for the raw text of the member's value (from a
// valid line, e.g. by PickRaw), "" when there is none.
func CutRaw(raw string) (string, int) {
	switch {
	case raw == "":
		return "", 0
	case raw[0] == '"':
		return CutString(raw)
	}
	s := ParseValue(raw).String()
	return textcut.Output(s), len(s)
}

// CutString returns textcut.Output(s) and len(s) for the string s whose
// raw JSON text (quotes included, from a valid line) is raw, unescaping
// only as much of it as the cut keeps: a tool output of many MiB costs one
// scan for its escapes, not a decoded copy.
func CutString(raw string) (string, int) {
	body := raw[1 : len(raw)-1]
	if strings.IndexByte(body, '\\') < 0 {
		return textcut.Output(body), len(body)
	}
	// head is where the decoded text first holds more than OutputBytes
	// bytes, which is all textcut.Output looks at; -1 while it holds fewer.
	const enough = textcut.OutputBytes + 1
	size, head := 0, -1
	for i := 0; i < len(body); {
		if head >= 0 {
			// Past the cut only the decoded length counts: a loop from
			// escape to escape that does no more than that (a long tool
			// output has hundreds of thousands of them).
			for i < len(body) {
				k := strings.IndexByte(body[i:], '\\')
				if k < 0 {
					size += len(body) - i
					break
				}
				i += k
				size += k
				if body[i+1] != 'u' {
					size++
					i += 2
					continue
				}
				end, n := escapeAt(body, i)
				size += n
				i = end
			}
			break
		}
		k := strings.IndexByte(body[i:], '\\')
		if k < 0 {
			k = len(body) - i
		}
		if head < 0 && size+k >= enough {
			head = i + enough - size
		}
		size += k
		i += k
		if i >= len(body) {
			break
		}
		end, n := escapeAt(body, i)
		size += n
		i = end
		if head < 0 && size >= enough {
			head = i
		}
	}
	if head < 0 {
		full := Unescape(body)
		return full, len(full)
	}
	return textcut.Output(Unescape(body[:head])), size
}

// escapeAt returns the end of the escape at s[k] (a backslash) in the
// body of a valid JSON string and how many bytes unescape decodes it to;
// a surrogate pair counts as one escape, as unescape decodes it.
func escapeAt(s string, k int) (end, n int) {
	if s[k+1] != 'u' {
		return k + 2, 1
	}
	r := hex4(s[k+2 : k+6])
	end = k + 6
	if r >= 0xD800 && r < 0xDC00 && len(s)-end >= 6 && s[end] == '\\' && s[end+1] == 'u' {
		if r2 := hex4(s[end+2 : end+6]); r2 >= 0xDC00 && r2 < 0xE000 {
			return end + 6, 4
		}
	}
	if n = utf8.RuneLen(r); n < 0 {
		n = utf8.RuneLen(utf8.RuneError) // a lone surrogate
	}
	return end, n
}
