package jsonpick

// Validator is Valid for a text that arrives in pieces, such as a line of
// many MiB read block by block: Feed checks what has arrived so far, End
// the rest once the text is whole, and End's answer is Valid's on the
// whole text. A reader can so check a long line on another goroutine
// while it reads the rest, instead of walking the whole line once more
// after it. The zero Validator is ready to use; it checks one text.
type Validator struct {
	// open holds the closing bracket of each open container.
	open []byte
	// state is what may come next; after is the state that follows the
	// string being checked (vString).
	state, after uint8
	// pos is where the check goes on: the start of a token that reached
	// the end of what had arrived (a number, a literal), or the place in
	// a string.
	pos int
	bad bool
}

// The states of a Validator.
const (
	vValue      = iota // a value must come
	vFirstValue        // after '[': a value or ']'
	vKey               // after ',' in an object: a key
	vFirstKey          // after '{': a key or '}'
	vColon             // after a key
	vAfter             // after a value: ',', a closing bracket, or the end
	vString            // inside a string
)

// Feed checks text, all of the text that has arrived so far (what an
// earlier call was given and more), as far as it can be told without what
// follows. It returns false once the text cannot be valid, whatever
// follows.
func (v *Validator) Feed(text []byte) bool {
	v.run(text, false)
	return !v.bad
}

// End checks the rest of text, the whole text (an earlier call's and
// what followed), and reports whether it is valid: Valid(text).
func (v *Validator) End(text []byte) bool {
	v.run(text, true)
	return !v.bad
}

// run goes on checking s from v.pos; final says s is the whole text. A
// number or literal that reaches the end of s when it is not final is
// checked again from its start next time (they are short); a string goes
// on from where the check stopped.
func (v *Validator) run(s []byte, final bool) {
	i := v.pos
	for !v.bad {
		if v.state == vString {
			end, ok := validString(s, i)
			if !ok {
				if more := stringCut(s, end); more && !final {
					v.pos = end
					return
				}
				v.bad = true
				return
			}
			i, v.state = end, v.after
			continue
		}
		i = skipSpaceBytes(s, i)
		if i >= len(s) {
			v.pos = i
			if final && (v.state != vAfter || len(v.open) > 0) {
				v.bad = true
			}
			return
		}
		c := s[i]
		switch v.state {
		case vFirstKey:
			if c == '}' {
				v.open = v.open[:len(v.open)-1]
				i, v.state = i+1, vAfter
				continue
			}
			fallthrough
		case vKey:
			if c != '"' {
				v.bad = true
				return
			}
			i, v.state, v.after = i+1, vString, vColon
		case vColon:
			if c != ':' {
				v.bad = true
				return
			}
			i, v.state = i+1, vValue
		case vAfter:
			if len(v.open) == 0 {
				v.bad = true // more than one value
				return
			}
			switch end := v.open[len(v.open)-1]; c {
			case ',':
				i, v.state = i+1, vValue
				if end == '}' {
					v.state = vKey
				}
			case end:
				v.open = v.open[:len(v.open)-1]
				i++
			default:
				v.bad = true
				return
			}
		case vFirstValue:
			if c == ']' {
				v.open = v.open[:len(v.open)-1]
				i, v.state = i+1, vAfter
				continue
			}
			fallthrough
		default: // vValue
			switch c {
			case '{', '[':
				v.open = append(v.open, c+2) // '}' and ']' follow '{' and '[' by two
				i, v.state = i+1, vFirstValue
				if c == '{' {
					v.state = vFirstKey
				}
				continue
			case '"':
				i, v.state, v.after = i+1, vString, vAfter
				continue
			}
			var end int
			var ok bool
			switch c {
			case 't':
				end, ok = literalPart(s, i, "true")
			case 'f':
				end, ok = literalPart(s, i, "false")
			case 'n':
				end, ok = literalPart(s, i, "null")
			default:
				end, ok = validNumber(s, i)
			}
			if end >= len(s) && !final {
				// The token reached the end of what arrived, and may go
				// on: checked again with more text.
				v.pos = i
				return
			}
			if !ok {
				v.bad = true
				return
			}
			i, v.state = end, vAfter
		}
	}
}

// literalPart is literal, except that a text ending inside a correct
// prefix of lit gives len(s) and false (so the caller can tell it may go
// on).
func literalPart(s []byte, i int, lit string) (int, bool) {
	n := min(len(lit), len(s)-i)
	if string(s[i:i+n]) != lit[:n] {
		return i, false
	}
	if n < len(lit) {
		return len(s), false
	}
	return i + n, true
}

// stringCut reports whether validString stopped at end because s ended
// inside the string (the text may go on) rather than at a byte that makes
// it invalid: the end of s, a backslash as s's last byte, or a \u escape
// whose hex digits so far are right but cut.
func stringCut(s []byte, end int) bool {
	if end >= len(s) {
		return true
	}
	if s[end] != '\\' {
		return false // a control byte
	}
	if end+1 >= len(s) {
		return true
	}
	if s[end+1] != 'u' || len(s)-end >= 6 {
		return false // a bad escape, or a \u with a bad digit
	}
	for _, c := range s[end+2:] {
		if !isHex(c) {
			return false
		}
	}
	return true
}
