package envelope

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"math/bits"
	"strconv"
	"unicode/utf8"
	"unsafe"

	"github.com/evcap/evcap/internal/jsonpick"
	"github.com/tidwall/gjson"
)

// AppendRecord appends r as one JSON line (with its "\n") to dst. Keys come
// in a fixed order, the payload is copied byte for byte, and unknown fields
// kept in r.Extra follow the known ones. An empty payload is written as null.
func AppendRecord(dst []byte, r *Record) []byte {
	return appendRecordAfterID(appendRecordHead(dst, r.SchemaVersion, r.CaptureID), r)
}

// appendRecordHead appends what a record starts with: its schemaVersion
// and captureId, the same for every record a Writer writes.
func appendRecordHead(dst []byte, version int, captureID string) []byte {
	dst = append(dst, `{"schemaVersion":`...)
	dst = strconv.AppendInt(dst, int64(version), 10)
	return appendStringField(dst, "captureId", captureID)
}

// appendRecordAfterID appends the rest of r after appendRecordHead.
func appendRecordAfterID(dst []byte, r *Record) []byte {
	dst = append(dst, `,"sequence":`...)
	dst = strconv.AppendInt(dst, r.Sequence, 10)
	dst = appendStringField(dst, "timestamp", r.Timestamp)
	dst = appendStringField(dst, "provider", r.Provider)
	dst = appendStringField(dst, "sessionId", r.SessionID)
	dst = appendStringField(dst, "turnId", r.TurnID)
	dst = appendStringField(dst, "stage", string(r.Stage))
	dst = appendStringField(dst, "eventType", r.EventType)
	dst = append(dst, `,"payload":`...)
	if len(r.Payload) == 0 {
		dst = append(dst, "null"...)
	} else {
		dst = append(dst, r.Payload...)
	}
	dst = append(dst, `,"redactions":[`...)
	for i, red := range r.Redactions {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, `{"rule":`...)
		dst = appendJSONString(dst, red.Rule)
		dst = appendStringField(dst, "pointer", red.Pointer)
		dst = append(dst, `,"count":`...)
		dst = strconv.AppendInt(dst, int64(red.Count), 10)
		dst = append(dst, `,"originalLength":`...)
		dst = strconv.AppendInt(dst, int64(red.OriginalLength), 10)
		dst = append(dst, '}')
	}
	dst = append(dst, ']')
	for _, opt := range [...]struct{ key, val string }{
		{"model", r.Model}, {"agent", r.Agent}, {"permissionMode", r.PermissionMode},
		{"cwdHash", r.CwdHash}, {"projectHash", r.ProjectHash}, {"source", r.Source}, {"notes", r.Notes},
	} {
		if opt.val != "" {
			dst = appendStringField(dst, opt.key, opt.val)
		}
	}
	if len(r.Cause) > 0 {
		dst = append(dst, `,"cause":[`...)
		for i, c := range r.Cause {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = strconv.AppendInt(dst, c, 10)
		}
		dst = append(dst, ']')
	}
	for _, f := range r.Extra {
		dst = append(dst, ',')
		if f.RawKey != nil {
			dst = append(dst, f.RawKey...)
		} else {
			dst = appendJSONString(dst, f.Key)
		}
		dst = append(dst, ':')
		dst = append(dst, f.Value...)
	}
	return append(dst, '}', '\n')
}

func appendStringField(dst []byte, key, val string) []byte {
	dst = append(dst, ',', '"')
	dst = append(dst, key...)
	dst = append(dst, '"', ':')
	return appendJSONString(dst, val)
}

const hexDigits = "0123456789abcdef"

// appendJSONString appends s as a JSON string. Unlike encoding/json it does
// not escape <, > and &, so text stays readable; invalid UTF-8 becomes U+FFFD, written as is so a second round trip is stable
// (callers that must keep bytes exact use EncodeNativeLine first).
func appendJSONString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		// Plain ASCII (no control byte, quote, backslash or DEL) is copied
		// as it is: passed eight bytes at a time up to the first byte that
		// is not.
		for len(s)-i >= 8 {
			if m := specialLanes(load64(s, i)); m != 0 {
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
			if b >= 0x20 && b != '"' && b != '\\' && b != 0x7f {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch b {
			case '"', '\\':
				dst = append(dst, '\\', b)
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[b>>4], hexDigits[b&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, "\uFFFD"...)
			i++
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// load64 is the eight bytes of s from i on as a little-endian word.
func load64(s string, i int) uint64 {
	_ = s[i+7]
	return uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
		uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
}

// specialLanes flags the bytes of w that appendJSONString must look at
// one by one: below 0x20, a quote, a backslash, DEL, or 0x80 and above
// (UTF-8). A borrow can flag a lane above a flagged one, never below, so
// the lowest flag is the first such byte (as in scanString).
func specialLanes(w uint64) uint64 {
	ctl := w - lanes1*0x20
	quote := (w ^ (lanes1 * '"')) - lanes1
	back := (w ^ (lanes1 * '\\')) - lanes1
	del := (w ^ (lanes1 * 0x7f)) - lanes1
	return (ctl|quote|back|del)&^w&lanesHigh | w&lanesHigh
}

// AppendJSONString appends s to dst as a JSON string literal, escaping only
// what JSON requires (plus DEL and U+2028/2029). Exported for packages that
// hand-build JSON lines in the same style.
func AppendJSONString(dst []byte, s string) []byte { return appendJSONString(dst, s) }

// NativeLine says how EncodeNativeLine stored a line.
type NativeLine int

// How a native line is stored in a payload.
const (
	// NativeJSON: the line is valid JSON and is the payload byte for byte.
	NativeJSON NativeLine = iota
	// NativeText: the line is valid UTF-8 but not JSON; the payload is a
	// JSON string holding it exactly.
	NativeText
	// NativeBinary: the line is not valid UTF-8; the payload is
	// {"encoding":"base64","data":"…"} so that no byte is lost.
	NativeBinary
)

// EncodeNativeLine turns one line an agent printed into a payload without
// losing a byte: a bare JSON object or array is kept as it is; anything else
// (including JSON with a trailing "\r" or with invalid UTF-8 inside) becomes
// a JSON string, or base64 when it is not valid UTF-8. DecodeNativeLine
// reverses it.
func EncodeNativeLine(line []byte) (json.RawMessage, NativeLine) {
	if isBareJSON(line) {
		return json.RawMessage(line), NativeJSON
	}
	return EncodeTextLine(line)
}

// isBareJSON reports whether line can be embedded in a record as is and
// read back byte for byte: an object or array with nothing around it (a
// trailing "\r" would be JSON whitespace that a reader drops) and valid
// UTF-8 (which JSON requires, though lenient parsers accept it).
func isBareJSON(line []byte) bool {
	// jsonpick.Valid accepts exactly what gjson.ValidBytes accepts, in
	// one pass that is about 40 % faster on agents' lines.
	return bareShape(line) && jsonpick.Valid(line)
}

// bareShape is isBareJSON but for the validation: an object or array
// with nothing around it, in valid UTF-8.
func bareShape(line []byte) bool {
	if len(line) < 2 {
		return false
	}
	first, last := line[0], line[len(line)-1]
	return (first == '{' && last == '}' || first == '[' && last == ']') && utf8.Valid(line)
}

// EncodeTextLine stores a line as text whatever it contains (stderr lines):
// a JSON string when it is valid UTF-8, base64 otherwise.
func EncodeTextLine(line []byte) (json.RawMessage, NativeLine) {
	if utf8.Valid(line) {
		return appendJSONString(make([]byte, 0, len(line)+2), viewString(line)), NativeText
	}
	return appendBase64Line(make([]byte, 0, base64.StdEncoding.EncodedLen(len(line))+32), line), NativeBinary
}

// AppendTextLine is EncodeTextLine appending to dst, for a writer that
// copies the payload out at once and can build every one in the same
// buffer.
func AppendTextLine(dst, line []byte) ([]byte, NativeLine) {
	if utf8.Valid(line) {
		return appendJSONString(dst, viewString(line)), NativeText
	}
	return appendBase64Line(dst, line), NativeBinary
}

// AppendNativeLine is EncodeNativeLine for a caller with a buffer of its
// own: a line stored as text is appended to dst; a bare JSON line is
// returned as it is (dst is not used).
func AppendNativeLine(dst, line []byte) ([]byte, NativeLine) {
	if isBareJSON(line) {
		return line, NativeJSON
	}
	return AppendTextLine(dst, line)
}

// AppendCheckedLine is AppendNativeLine for a line the caller knows to be
// one valid JSON value (a redactor walked it): it is not validated again,
// only checked for what else makes a line bare (nothing around the value,
// valid UTF-8). A line that is not valid JSON must not come here: it
// would be embedded as it is and make the record unreadable.
func AppendCheckedLine(dst, line []byte) ([]byte, NativeLine) {
	if bareShape(line) {
		return line, NativeJSON
	}
	return AppendTextLine(dst, line)
}

func appendBase64Line(dst, line []byte) []byte {
	dst = append(dst, `{"encoding":"base64","data":"`...)
	dst = base64.StdEncoding.AppendEncode(dst, line)
	return append(dst, `"}`...)
}

// viewString is b as a string without a copy, for appendJSONString, which
// only reads it during the call (a conversion would copy every text line
// once more).
func viewString(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

// DecodeNativeLine returns the original bytes of a native line payload
// written by EncodeNativeLine with the given event type.
func DecodeNativeLine(eventType string, payload []byte) []byte {
	if eventType != EventNonJSON && eventType != EventStderr {
		return payload
	}
	p := gjson.ParseBytes(payload)
	if p.Type == gjson.String {
		return []byte(p.String())
	}
	if p.IsObject() && p.Get("encoding").String() == "base64" {
		b, err := base64.StdEncoding.DecodeString(p.Get("data").String())
		if err == nil {
			return b
		}
	}
	return payload
}

// MarshalPayload encodes v as a compact JSON payload the way evcap writes
// its own records: like encoding/json, but without escaping <, > and &, so
// placeholders such as <PROJECT> stay readable and greppable in the file.
func MarshalPayload(v any) (json.RawMessage, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}
