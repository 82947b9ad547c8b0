package event

import (
	"encoding/binary"
	"encoding/json"
	"io"
	"math"
	"math/bits"
	"strconv"
	"unicode/utf8"
)

// AppendJSON appends the JSON form of e to dst and returns the extended
// buffer: byte for byte what json.Marshal(e) gives (field order, omitempty,
// HTML-safe escaping of <, > and &, U+2028 and U+2029 escaped, invalid
// UTF-8 replaced by \ufffd, floats formatted as encoding/json does, and
// Tool.Input compacted with the same escaping), without reflection and
// without allocating when dst has room.
//
// It exists because encoding the events was a fifth or more of `evcap
// normalize`; a writer of events in bulk (normalize, record, replay) can
// reuse one buffer for all of them. When json.Marshal would fail (a NaN or
// infinite float, a Tool.Input that is not valid JSON), AppendJSON returns
// dst unchanged and json.Marshal's own error.
func AppendJSON(dst []byte, e *Event) ([]byte, error) {
	if !encodable(e) {
		return dst, marshalError(e, true)
	}
	return appendEvent(dst, e, true), nil
}

// AppendPayload is AppendJSON without encoding/json's HTML escaping: byte
// for byte what envelope.MarshalPayload(e) gives (an Encoder with
// SetEscapeHTML(false), its newline dropped), the form of normalized_out
// payloads in captures and of replay's normalized goldens (which add the
// newline). <, > and & are written as they are, in strings and in
// Tool.Input; U+2028 and U+2029 are still escaped in strings (encoding/json
// always does) but not in Tool.Input (its compaction does not).
func AppendPayload(dst []byte, e *Event) ([]byte, error) {
	if !encodable(e) {
		return dst, marshalError(e, false)
	}
	return appendEvent(dst, e, false), nil
}

// appendEvent appends e; html says whether <, > and & are escaped.
func appendEvent(dst []byte, e *Event, html bool) []byte {
	dst = append(dst, `{"kind":`...)
	dst = appendString(dst, string(e.Kind), html)
	dst = append(dst, `,"phase":`...)
	dst = appendString(dst, string(e.Phase), html)
	dst = optString(dst, `,"sessionId":`, e.SessionID, html)
	dst = optString(dst, `,"turnId":`, e.TurnID, html)
	dst = optString(dst, `,"messageId":`, e.MessageID, html)
	dst = optString(dst, `,"partId":`, e.PartID, html)
	dst = optString(dst, `,"toolCallId":`, e.ToolCallID, html)
	dst = optString(dst, `,"parentToolCallId":`, e.ParentToolCallID, html)
	if a := e.Agent; a != nil {
		dst = appendAgent(append(dst, `,"agent":`...), a, html)
	}
	dst = optString(dst, `,"messagePhase":`, string(e.MessagePhase), html)
	dst = optString(dst, `,"text":`, e.Text, html)
	if t := e.Tool; t != nil {
		dst = append(dst, `,"tool":{"name":`...)
		dst = appendString(dst, t.Name, html)
		dst = append(dst, `,"summary":`...)
		dst = appendString(dst, t.Summary, html)
		if len(t.Input) > 0 {
			dst = appendCompact(append(dst, `,"input":`...), t.Input, html)
		}
		dst = append(dst, '}')
	}
	if r := e.ToolResult; r != nil {
		dst = append(dst, `,"toolResult":{"isError":`...)
		dst = strconv.AppendBool(dst, r.IsError)
		dst = append(dst, `,"output":`...)
		dst = appendString(dst, r.Output, html)
		dst = append(dst, `,"outputBytes":`...)
		dst = strconv.AppendInt(dst, int64(r.OutputBytes), 10)
		dst = append(dst, '}')
	}
	if u := e.Usage; u != nil {
		dst = append(dst, `,"usage":{"inputTokens":`...)
		dst = strconv.AppendInt(dst, u.InputTokens, 10)
		dst = append(dst, `,"outputTokens":`...)
		dst = strconv.AppendInt(dst, u.OutputTokens, 10)
		dst = append(dst, `,"cacheReadTokens":`...)
		dst = strconv.AppendInt(dst, u.CacheReadTokens, 10)
		dst = append(dst, `,"cacheWriteTokens":`...)
		dst = strconv.AppendInt(dst, u.CacheWriteTokens, 10)
		dst = append(dst, `,"reasoningTokens":`...)
		dst = strconv.AppendInt(dst, u.ReasoningTokens, 10)
		dst = append(dst, `,"cumulative":`...)
		dst = strconv.AppendBool(dst, u.Cumulative)
		dst = append(dst, '}')
	}
	if r := e.Result; r != nil {
		dst = append(dst, `,"result":{`...)
		if r.Subtype != "" {
			dst = appendString(append(dst, `"subtype":`...), r.Subtype, html)
			dst = append(dst, ',')
		}
		dst = append(dst, `"isError":`...)
		dst = strconv.AppendBool(dst, r.IsError)
		dst = optInt(dst, `,"numTurns":`, int64(r.NumTurns))
		dst = optFloat(dst, `,"costUsd":`, r.CostUSD)
		dst = optInt(dst, `,"durationMs":`, r.DurationMs)
		dst = optString(dst, `,"text":`, r.Text, html)
		dst = append(dst, '}')
	}
	if x := e.Error; x != nil {
		dst = append(dst, `,"error":{`...)
		if x.Type != "" {
			dst = appendString(append(dst, `"type":`...), x.Type, html)
			dst = append(dst, ',')
		}
		dst = append(dst, `"message":`...)
		dst = appendString(dst, x.Message, html)
		dst = append(dst, `,"fatal":`...)
		dst = strconv.AppendBool(dst, x.Fatal)
		dst = append(dst, '}')
	}
	if r := e.Retry; r != nil {
		dst = append(dst, `,"retry":{"attempt":`...)
		dst = strconv.AppendInt(dst, int64(r.Attempt), 10)
		dst = optInt(dst, `,"maxRetries":`, int64(r.MaxRetries))
		dst = optInt(dst, `,"delayMs":`, r.DelayMs)
		dst = optInt(dst, `,"status":`, int64(r.Status))
		dst = optString(dst, `,"error":`, r.Error, html)
		dst = append(dst, '}')
	}
	if p := e.Permission; p != nil {
		dst = append(dst, `,"permission":`...)
		o := len(dst)
		dst = append(dst, '{')
		dst = optString(dst, `,"id":`, p.ID, html)
		dst = optString(dst, `,"tool":`, p.Tool, html)
		dst = optString(dst, `,"summary":`, p.Summary, html)
		if len(p.Patterns) > 0 {
			dst = append(dst, `,"patterns":[`...)
			for i, s := range p.Patterns {
				if i > 0 {
					dst = append(dst, ',')
				}
				dst = appendString(dst, s, html)
			}
			dst = append(dst, ']')
		}
		dst = optString(dst, `,"reply":`, p.Reply, html)
		dst = optString(dst, `,"message":`, p.Message, html)
		dst = closeObject(dst, o)
	}
	if r := e.RateLimit; r != nil {
		dst = append(dst, `,"rateLimit":`...)
		o := len(dst)
		dst = append(dst, '{')
		dst = optString(dst, `,"status":`, r.Status, html)
		dst = optString(dst, `,"type":`, r.Type, html)
		dst = optInt(dst, `,"resetsAt":`, r.ResetsAt)
		dst = optFloat(dst, `,"utilization":`, r.Utilization)
		dst = closeObject(dst, o)
	}
	if h := e.Hook; h != nil {
		dst = append(dst, `,"hook":`...)
		o := len(dst)
		dst = append(dst, '{')
		dst = optString(dst, `,"id":`, h.ID, html)
		dst = optString(dst, `,"name":`, h.Name, html)
		dst = optString(dst, `,"event":`, h.Event, html)
		dst = optString(dst, `,"outcome":`, h.Outcome, html)
		if h.ExitCode != nil {
			dst = strconv.AppendInt(append(dst, `,"exitCode":`...), int64(*h.ExitCode), 10)
		}
		dst = optString(dst, `,"output":`, h.Output, html)
		dst = closeObject(dst, o)
	}
	dst = optString(dst, `,"status":`, e.Status, html)
	dst = optString(dst, `,"model":`, e.Model, html)
	dst = optString(dst, `,"version":`, e.Version, html)
	dst = optString(dst, `,"nativeType":`, e.NativeType, html)
	if len(e.Cause) > 0 {
		dst = append(dst, `,"cause":[`...)
		for i, c := range e.Cause {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = strconv.AppendInt(dst, c, 10)
		}
		dst = append(dst, ']')
	}
	return append(dst, '}')
}

// appendAgent appends an Agent object (every member omitempty).
func appendAgent(dst []byte, a *Agent, html bool) []byte {
	o := len(dst)
	dst = append(dst, '{')
	dst = optString(dst, `,"id":`, a.ID, html)
	dst = optString(dst, `,"name":`, a.Name, html)
	dst = optString(dst, `,"description":`, a.Description, html)
	dst = optString(dst, `,"status":`, a.Status, html)
	dst = optString(dst, `,"summary":`, a.Summary, html)
	return closeObject(dst, o)
}

// closeObject ends an object opened with '{' at dst[o] whose members were
// each appended with a leading comma: the first comma goes.
func closeObject(dst []byte, o int) []byte {
	if len(dst) > o+1 && dst[o+1] == ',' {
		dst = append(dst[:o+1], dst[o+2:]...)
	}
	return append(dst, '}')
}

// encodable reports whether json.Marshal(e) succeeds: every float is
// finite and Tool.Input, when set, is valid JSON within encoding/json's
// nesting limit.
func encodable(e *Event) bool {
	if r := e.Result; r != nil && !finite(r.CostUSD) {
		return false
	}
	if r := e.RateLimit; r != nil && !finite(r.Utilization) {
		return false
	}
	if t := e.Tool; t != nil && len(t.Input) > 0 && !validJSON(t.Input) {
		return false
	}
	return true
}

func finite(f float64) bool { return !math.IsInf(f, 0) && !math.IsNaN(f) }

// marshalError is encoding/json's error for an event it cannot encode
// (html: json.Marshal's; else an Encoder's without HTML escaping).
func marshalError(e *Event, html bool) error {
	enc := json.NewEncoder(io.Discard)
	enc.SetEscapeHTML(html)
	err := enc.Encode(e)
	if err == nil {
		// encodable and encoding/json disagree; never seen, and
		// the differential tests and the fuzz target look for it.
		panic("event: AppendJSON refused an event json.Marshal encodes")
	}
	return err
}

func optString(dst []byte, key, s string, html bool) []byte {
	if s == "" {
		return dst
	}
	return appendString(append(dst, key...), s, html)
}

func optInt(dst []byte, key string, n int64) []byte {
	if n == 0 {
		return dst
	}
	return strconv.AppendInt(append(dst, key...), n, 10)
}

func optFloat(dst []byte, key string, f float64) []byte {
	if f == 0 {
		return dst
	}
	return appendFloat(append(dst, key...), f)
}

// appendFloat formats a finite float64 as encoding/json does (like ES6
// number-to-string: 'f' format, 'e' for very small or large magnitudes,
// with the exponent's leading zero dropped).
func appendFloat(dst []byte, f float64) []byte {
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	dst = strconv.AppendFloat(dst, f, format, -1, 64)
	if format == 'e' {
		n := len(dst)
		if n >= 4 && dst[n-4] == 'e' && dst[n-3] == '-' && dst[n-2] == '0' {
			dst[n-2] = dst[n-1]
			dst = dst[:n-1]
		}
	}
	return dst
}

const hexDigits = "0123456789abcdef"

// plain[b] is true for the ASCII bytes a JSON string holds as they are
// under encoding/json's HTML-safe escaping: not a control byte, not '"',
// '\\', '<', '>' or '&'.
var plain = func() (t [utf8.RuneSelf]bool) {
	for b := 0x20; b < utf8.RuneSelf; b++ {
		t[b] = true
	}
	for _, b := range `"\<>&` {
		t[b] = false
	}
	return t
}()

// plainNoHTML is plain without HTML escaping: '<', '>' and '&' are plain.
var plainNoHTML = func() (t [utf8.RuneSelf]bool) {
	t = plain
	t['<'], t['>'], t['&'] = true, true, true
	return t
}()

// special flags (in the high bit of each byte) the bytes of the
// little-endian word w that appendString cannot copy as they are: control
// bytes, '"', '\\', '<', '>', '&' and every byte of a multi-byte
// sequence. The lowest flagged byte is exact (a borrow only flags bytes
// above a real one), which is all the caller uses.
func special(w uint64, html bool) uint64 {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	m := (w - ones*0x20) &^ w // bytes below 0x20
	for _, c := range [...]uint64{'"', '\\'} {
		x := w ^ (ones * c)
		m |= (x - ones) &^ x
	}
	if html {
		for _, c := range [...]uint64{'<', '>', '&'} {
			x := w ^ (ones * c)
			m |= (x - ones) &^ x
		}
	}
	return (m | w) & highs // w's own high bits: bytes from 0x80
}

// AppendString appends s as a JSON string escaped as AppendPayload
// escapes its strings: encoding/json's escaping without HTML escaping
// (invalid UTF-8 as U+FFFD, U+2028 and U+2029 escaped). For a caller that
// writes JSON strings in payloads of its own (the legacy markers) and
// must match encoding/json byte for byte.
func AppendString(dst []byte, s string) []byte { return appendString(dst, s, false) }

// appendString appends s as a JSON string with encoding/json's escaping
// (html: of <, > and & too).
func appendString(dst []byte, s string, html bool) []byte {
	safe := &plain
	if !html {
		safe = &plainNoHTML
	}
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		// Skip eight plain ASCII bytes at a time (the common case), then
		// straight to the first byte of the word that is not.
		for i+8 <= len(s) {
			if m := special(binary.LittleEndian.Uint64([]byte(s[i:i+8])), html); m != 0 {
				i += bits.TrailingZeros64(m) >> 3
				break
			}
			i += 8
		}
		if i >= len(s) {
			break
		}
		b := s[i]
		if b < utf8.RuneSelf {
			if safe[b] {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch b {
			case '\\', '"':
				dst = append(dst, '\\', b)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[b>>4], hexDigits[b&0xF])
			}
			i++
			start = i
			continue
		}
		// Two- and three-byte sequences (accents, Greek, CJK, dashes and
		// curly quotes) are checked here; U+2028 and U+2029 (E2 80 A8
		// and A9), four-byte and bad sequences are left to
		// DecodeRuneInString.
		if i+1 < len(s) && b >= 0xC2 && b < 0xE0 && s[i+1]&0xC0 == 0x80 {
			i += 2
			continue
		}
		if i+2 < len(s) && b >= 0xE0 && b < 0xF0 && s[i+1]&0xC0 == 0x80 && s[i+2]&0xC0 == 0x80 &&
			(b != 0xE0 || s[i+1] >= 0xA0) && (b != 0xED || s[i+1] < 0xA0) && (b != 0xE2 || s[i+1] != 0x80 || s[i+2]&0xFE != 0xA8) {
			i += 3
			continue
		}
		c, size := utf8.DecodeRuneInString(s[i:])
		if c == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i++
			start = i
			continue
		}
		if c == '\u2028' || c == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[c&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// appendCompact appends the valid JSON text raw as encoding/json writes a
// json.RawMessage: white space outside strings dropped and, with html, <,
// > and & written as \u003c, \u003e and \u0026 and U+2028 and U+2029 as
// \u2028 and \u2029; everything else (invalid UTF-8 included) as it is.
func appendCompact(dst, raw []byte, html bool) []byte {
	start := 0
	inString := false
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if html {
			switch {
			case c == '<' || c == '>' || c == '&':
				dst = append(dst, raw[start:i]...)
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
				start = i + 1
				continue
			case c == 0xE2 && i+2 < len(raw) && raw[i+1] == 0x80 && raw[i+2]&^1 == 0xA8:
				dst = append(dst, raw[start:i]...)
				dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[raw[i+2]&0xF])
				i += 2
				start = i + 1
				continue
			}
		}
		switch {
		case inString:
			switch c {
			case '\\':
				i++ // the escaped byte is never a quote that ends the string
			case '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			dst = append(dst, raw[start:i]...)
			start = i + 1
		}
	}
	return append(dst, raw[start:]...)
}

// maxDepth is encoding/json's nesting limit: a RawMessage nested deeper
// fails to encode.
const maxDepth = 10000

// validJSON reports whether b is one JSON value with optional white space
// around it, under the grammar and the nesting limit of encoding/json's
// scanner (no UTF-8 check, as there). The open containers are kept in a
// slice, not on the call stack.
func validJSON(b []byte) bool {
	var buf [64]byte
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
		i = skipSpace(b, i)
		switch state {
		case wantValue:
			if i >= len(b) {
				return false
			}
			switch b[i] {
			case '{', '[':
				if len(open) >= maxDepth {
					return false
				}
				end := b[i] + 2 // '}' and ']' follow '{' and '[' by two
				j := skipSpace(b, i+1)
				if j < len(b) && b[j] == end {
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
				if i, ok = validString(b, i+1); !ok {
					return false
				}
			case 't':
				if i, ok = literal(b, i, "true"); !ok {
					return false
				}
			case 'f':
				if i, ok = literal(b, i, "false"); !ok {
					return false
				}
			case 'n':
				if i, ok = literal(b, i, "null"); !ok {
					return false
				}
			default:
				if i, ok = validNumber(b, i); !ok {
					return false
				}
			}
			state = afterValue
		case wantKey:
			if i >= len(b) || b[i] != '"' {
				return false
			}
			if i, ok = validString(b, i+1); !ok {
				return false
			}
			i = skipSpace(b, i)
			if i >= len(b) || b[i] != ':' {
				return false
			}
			i++
			state = wantValue
		case afterValue:
			if len(open) == 0 {
				return i == len(b)
			}
			if i >= len(b) {
				return false
			}
			end := open[len(open)-1]
			switch b[i] {
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

func skipSpace(s []byte, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') {
		i++
	}
	return i
}

func literal(s []byte, i int, lit string) (int, bool) {
	if len(s)-i < len(lit) || string(s[i:i+len(lit)]) != lit {
		return i, false
	}
	return i + len(lit), true
}

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

// validString checks the rest of a string whose opening quote is before
// s[i] and returns the index after its closing quote.
func validString(s []byte, i int) (int, bool) {
	for i < len(s) {
		switch c := s[i]; {
		case c == '"':
			return i + 1, true
		case c < 0x20:
			return i, false
		case c == '\\':
			if i+1 >= len(s) {
				return i, false
			}
			switch s[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if len(s)-i < 6 || !isHex(s[i+2]) || !isHex(s[i+3]) || !isHex(s[i+4]) || !isHex(s[i+5]) {
					return i, false
				}
				i += 6
			default:
				return i, false
			}
		default:
			i++
		}
	}
	return i, false
}

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}
