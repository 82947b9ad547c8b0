package envelope

import (
	"encoding/binary"
	"encoding/json"
	"math/bits"
)

// This file reads a record line in one pass: a single left-to-right scan
// that checks the line is JSON by the grammar gjson.ValidBytes accepts
// (RFC 8259 without a UTF-8 check, any depth) and, as it goes, picks the
// envelope's fields and the span of the payload. It replaces validating
// the whole line and then walking it a second time with gjson.
//
// The scan only takes the shape records have when evcap writes them: an
// object whose known fields each appear once, with the types the format
// gives them, integers written plainly (no sign, fraction or exponent, at
// most 15 digits, so that every reading of them agrees), and no escapes
// in member names or in the envelope's own string fields. Anything else,
// valid or not, makes scanRecord return false, and the caller reads the
// line the general way (parseSlow, ParseRecord's gjson walk), which gives
// the same record for odd but valid lines and the same error for bad
// ones. So errors, and every rule of the format, stay in one place;
// the scan is only a faster road to the same answer for the lines that
// have the plain shape.

// field bits: the first eleven are requiredFields, in order.
const (
	fSchemaVersion = iota
	fCaptureID
	fSequence
	fTimestamp
	fProvider
	fSessionID
	fTurnID
	fStage
	fEventType
	fPayload
	fRedactions
	fModel
	fAgent
	fPermissionMode
	fCwdHash
	fProjectHash
	fSource
	fNotes
	fCause
	nFields
)

const requiredBits = 1<<(fRedactions+1) - 1

// lineScanner holds what scanRecord reuses from one line to the next: the
// strings of the previous record, so that a field that repeats (the
// capture id, provider, session, stage, often the timestamp) costs no
// allocation. Strings are immutable, so records may share them.
type lineScanner struct {
	last [nFields]string
	// seen holds the event types met so far (a capture has a few dozen),
	// which alternate from record to record, unlike the other fields.
	seen map[string]string
	// causes, when set, is where the numbers of each record's cause go
	// (Record.Cause is then a piece of it), instead of an array of the
	// record's own.
	causes *[]int64
}

// intern returns b as a string, the previous one for this field when the
// bytes are the same.
func (s *lineScanner) intern(field int, b []byte) string {
	if s.last[field] == string(b) {
		return s.last[field]
	}
	v := string(b)
	s.last[field] = v
	return v
}

// eventType is intern for the eventType field. A map is made only once a
// second type turns up, so a scanner used for one line (ParseRecord)
// makes none.
func (s *lineScanner) eventType(b []byte) string {
	last := s.last[fEventType]
	if last == string(b) {
		return last
	}
	if v, ok := s.seen[string(b)]; ok {
		s.last[fEventType] = v
		return v
	}
	v := string(b)
	if last != "" && len(s.seen) < 256 {
		if s.seen == nil {
			s.seen = map[string]string{last: last}
		}
		s.seen[v] = v
	}
	s.last[fEventType] = v
	return v
}

// scanRecord fills rec from line when the line has the plain shape (see
// above) and reports whether it did; on false rec holds partial data and
// the line must be read with parseSlow or ParseRecord. With shared set,
// rec.Payload and the values of rec.Extra point into line instead of
// being copies, and rec.Extra's array is reused.
func (s *lineScanner) scanRecord(line []byte, rec *Record, shared bool) bool {
	extra := rec.Extra[:0]
	if !shared {
		extra = nil
	}
	*rec = Record{}
	seen := 0
	i := skipSpace(line, 0)
	if i >= len(line) || line[i] != '{' {
		return false
	}
	i = skipSpace(line, i+1)
	if i < len(line) && line[i] == '}' {
		return false // no fields: the slow path names the missing one
	}
	prev := nFields // the field of the member before; nFields at the start
	for {
		// A member: its name, a colon, its value. The member the writer
		// puts next is recognised by its bytes, name and colon, without
		// scanning them; any other is scanned.
		if i >= len(line) || line[i] != '"' {
			return false
		}
		ks := i
		var key []byte
		field := -1
		if nm := &nextMembers[prev]; nm.match(line, i) {
			field = nm.field
			i += nm.n
		} else {
			end, esc, ok := scanString(line, i+1)
			if !ok || esc {
				return false
			}
			key = line[ks+1 : end-1]
			i = skipSpace(line, end)
			if i >= len(line) || line[i] != ':' {
				return false
			}
			i++
			field = fieldOf(key)
		}
		i = skipSpace(line, i)
		if i >= len(line) {
			return false
		}
		prev = nFields + 1 // an unknown member: no member is expected after it
		if field >= 0 {
			prev = field
			if seen&(1<<field) != 0 {
				return false // a repeated field: the slow path knows which copy wins
			}
			seen |= 1 << field
		}
		switch field {
		case fSchemaVersion:
			v, e, ok := plainInt(line, i)
			if !ok {
				return false
			}
			rec.SchemaVersion, i = int(v), e
		case fSequence:
			v, e, ok := plainInt(line, i)
			if !ok {
				return false
			}
			rec.Sequence, i = v, e
		case fCaptureID, fTimestamp, fProvider, fSessionID, fTurnID, fStage, fEventType,
			fModel, fAgent, fPermissionMode, fCwdHash, fProjectHash, fSource, fNotes:
			if line[i] != '"' {
				return false
			}
			if last := s.last[field]; len(line)-i > len(last)+1 && line[i+1+len(last)] == '"' && string(line[i+1:i+1+len(last)]) == last {
				// The value of the record before, which was scanned then
				// (no escape, no control byte, no quote in it).
				if s.same(field, rec, last) {
					i += len(last) + 2
					break
				}
			}
			e, esc, ok := scanString(line, i+1)
			if !ok || esc {
				return false
			}
			v := line[i+1 : e-1]
			i = e
			switch field {
			case fCaptureID:
				rec.CaptureID = s.intern(field, v)
			case fTimestamp:
				rec.Timestamp = s.intern(field, v)
			case fProvider:
				rec.Provider = s.intern(field, v)
			case fSessionID:
				rec.SessionID = s.intern(field, v)
			case fTurnID:
				rec.TurnID = s.intern(field, v)
			case fStage:
				st, ok := knownStage(v)
				if !ok {
					return false
				}
				rec.Stage = st
			case fEventType:
				rec.EventType = s.eventType(v)
			case fModel:
				rec.Model = s.intern(field, v)
			case fAgent:
				rec.Agent = s.intern(field, v)
			case fPermissionMode:
				rec.PermissionMode = s.intern(field, v)
			case fCwdHash:
				rec.CwdHash = s.intern(field, v)
			case fProjectHash:
				rec.ProjectHash = s.intern(field, v)
			case fSource:
				rec.Source = s.intern(field, v)
			case fNotes:
				rec.Notes = s.intern(field, v)
			}
		case fPayload:
			e, ok := skipValue(line, i)
			if !ok {
				return false
			}
			if shared {
				rec.Payload = line[i:e:e]
			} else {
				rec.Payload = append(json.RawMessage(nil), line[i:e]...)
			}
			i = e
		case fRedactions:
			if len(line)-i > 2 && line[i] == '[' && line[i+1] == ']' {
				rec.Redactions = []Redaction{}
				i += 2
				break
			}
			if line[i] != '[' {
				return false
			}
			e, ok := skipValue(line, i)
			if !ok {
				return false
			}
			rec.Redactions = []Redaction{}
			if j := skipSpace(line, i+1); j != e-1 {
				// Not empty: decoded as ParseRecord does; its errors are
				// the slow path's to report.
				if json.Unmarshal(line[i:e], &rec.Redactions) != nil {
					return false
				}
			}
			i = e
		case fCause:
			e, ok := s.cause(line, i, rec)
			if !ok {
				return false
			}
			i = e
		default:
			e, ok := skipValue(line, i)
			if !ok {
				return false
			}
			f := Field{Key: string(key)}
			if shared {
				f.Value, f.RawKey = line[i:e:e], line[ks:ks+len(key)+2:ks+len(key)+2]
			} else {
				f.Value = append(json.RawMessage(nil), line[i:e]...)
				f.RawKey = append(json.RawMessage(nil), line[ks:ks+len(key)+2]...)
			}
			extra = append(extra, f)
			i = e
		}
		// After the value: another member or the end of the object.
		i = skipSpace(line, i)
		if i >= len(line) {
			return false
		}
		if line[i] == '}' {
			break
		}
		if line[i] != ',' {
			return false
		}
		i = skipSpace(line, i+1)
	}
	if skipSpace(line, i+1) != len(line) || seen&requiredBits != requiredBits {
		return false
	}
	if len(extra) > 0 {
		rec.Extra = extra
	}
	return true
}

// nextMembers holds, by the field of a member, the member AppendRecord
// writes after it (the first one after nFields, the start of the object;
// none after nFields+1, an unknown member).
var nextMembers [nFields + 2]memberLit

// memberLit is a member's name and colon as AppendRecord writes them, at
// most 16 bytes, as two little-endian words with the masks of their bytes.
type memberLit struct {
	w, mask [2]uint64
	n       int // its length; 0 for none
	field   int
}

// match says whether line[i:] starts with the member and has a byte
// after it.
func (m *memberLit) match(line []byte, i int) bool {
	if len(line)-i < 16 {
		// Near the end of the line: no record's member is this short.
		return false
	}
	return m.n > 0 && binary.LittleEndian.Uint64(line[i:])&m.mask[0] == m.w[0] &&
		binary.LittleEndian.Uint64(line[i+8:])&m.mask[1] == m.w[1]
}

func init() {
	order := []int{nFields, fSchemaVersion, fCaptureID, fSequence, fTimestamp, fProvider, fSessionID,
		fTurnID, fStage, fEventType, fPayload, fRedactions, fCause}
	for k := 0; k+1 < len(order); k++ {
		lit := `"` + fieldNames[order[k+1]] + `":`
		if len(lit) > 16 {
			panic("envelope: member name too long for memberLit: " + lit)
		}
		var b, mask [16]byte
		copy(b[:], lit)
		for j := range lit {
			mask[j] = 0xff
		}
		m := &nextMembers[order[k]]
		m.n, m.field = len(lit), order[k+1]
		for h := range 2 {
			m.w[h] = binary.LittleEndian.Uint64(b[8*h:])
			m.mask[h] = binary.LittleEndian.Uint64(mask[8*h:])
		}
	}
}

// fieldNames is the member name of each field.
var fieldNames = [nFields]string{"schemaVersion", "captureId", "sequence", "timestamp", "provider",
	"sessionId", "turnId", "stage", "eventType", "payload", "redactions", "model", "agent",
	"permissionMode", "cwdHash", "projectHash", "source", "notes", "cause"}

// same sets field of rec to v, the field's value in the record before,
// and reports whether it did (stage, which is not kept there, it does
// not).
func (s *lineScanner) same(field int, rec *Record, v string) bool {
	switch field {
	case fCaptureID:
		rec.CaptureID = v
	case fTimestamp:
		rec.Timestamp = v
	case fProvider:
		rec.Provider = v
	case fSessionID:
		rec.SessionID = v
	case fTurnID:
		rec.TurnID = v
	case fEventType:
		rec.EventType = v
	case fModel:
		rec.Model = v
	case fAgent:
		rec.Agent = v
	case fPermissionMode:
		rec.PermissionMode = v
	case fCwdHash:
		rec.CwdHash = v
	case fProjectHash:
		rec.ProjectHash = v
	case fSource:
		rec.Source = v
	case fNotes:
		rec.Notes = v
	default:
		return false
	}
	return true
}

// cause reads the cause array at line[i]: plain positive integers only.
// The numbers go to s.causes when it is set, rec.Cause being their piece
// of it, else to an array of rec's own.
func (s *lineScanner) cause(line []byte, i int, rec *Record) (int, bool) {
	if line[i] != '[' {
		return i, false
	}
	i = skipSpace(line, i+1)
	if i < len(line) && line[i] == ']' {
		return i + 1, true
	}
	var nums []int64 // the arena, when there is one, and this cause after it
	if s.causes != nil {
		nums = *s.causes
	}
	from := len(nums)
	for {
		v, e, ok := plainInt(line, i)
		if !ok {
			return i, false
		}
		nums = append(nums, v)
		i = skipSpace(line, e)
		if i >= len(line) {
			return i, false
		}
		switch line[i] {
		case ']':
			// Records before keep the pieces they have, in the arena's
			// old array when this append moved it.
			rec.Cause = nums[from:len(nums):len(nums)]
			if s.causes != nil {
				*s.causes = nums
			}
			return i + 1, true
		case ',':
			i = skipSpace(line, i+1)
		default:
			return i, false
		}
	}
}

// fieldOf is the bit of a known member name, -1 for others.
func fieldOf(key []byte) int {
	switch string(key) {
	case "schemaVersion":
		return fSchemaVersion
	case "captureId":
		return fCaptureID
	case "sequence":
		return fSequence
	case "timestamp":
		return fTimestamp
	case "provider":
		return fProvider
	case "sessionId":
		return fSessionID
	case "turnId":
		return fTurnID
	case "stage":
		return fStage
	case "eventType":
		return fEventType
	case "payload":
		return fPayload
	case "redactions":
		return fRedactions
	case "model":
		return fModel
	case "agent":
		return fAgent
	case "permissionMode":
		return fPermissionMode
	case "cwdHash":
		return fCwdHash
	case "projectHash":
		return fProjectHash
	case "source":
		return fSource
	case "notes":
		return fNotes
	case "cause":
		return fCause
	}
	return -1
}

// knownStage returns the Stage constant spelled b, without allocating.
func knownStage(b []byte) (Stage, bool) {
	switch string(b) {
	case string(StageNativeIn):
		return StageNativeIn, true
	case string(StageNativeOut):
		return StageNativeOut, true
	case string(StageNormalizedOut):
		return StageNormalizedOut, true
	case string(StageLegacyOut):
		return StageLegacyOut, true
	case string(StageHandlerIn):
		return StageHandlerIn, true
	case string(StageRenderIn):
		return StageRenderIn, true
	case string(StageMeta):
		return StageMeta, true
	}
	return "", false
}

// plainInt reads a positive integer of at most 15 digits without a
// leading zero at line[i] and returns it and the index after it. Larger
// or other numbers (zero, signed, fractions, exponents) are not plain:
// false, for the slow path, whose float and int readings of them may
// differ.
func plainInt(line []byte, i int) (int64, int, bool) {
	if i >= len(line) || line[i] < '1' || line[i] > '9' {
		return 0, i, false
	}
	var v int64
	j := i
	for j < len(line) && line[j] >= '0' && line[j] <= '9' {
		v = v*10 + int64(line[j]-'0')
		j++
	}
	if j-i > 15 || (j < len(line) && (line[j] == '.' || line[j] == 'e' || line[j] == 'E')) {
		return 0, j, false
	}
	return v, j, true
}

// skipSpace returns the index of the first byte from b[i] on that is not
// JSON white space. The usual case, a byte above ' ', is one comparison.
func skipSpace(b []byte, i int) int {
	for i < len(b) && b[i] <= ' ' && (b[i] == ' ' || b[i] == '\n' || b[i] == '\r' || b[i] == '\t') {
		i++
	}
	return i
}

// skipValue checks the JSON value that starts at b[i] and returns the
// index just after it. Nesting is tracked in a slice, not by recursion,
// so no depth of brackets can exhaust the stack (gjson has no depth limit
// either, so none is imposed).
func skipValue(b []byte, i int) (int, bool) {
	var buf [64]byte
	open := buf[:0] // the closing byte of each open container
	var ok bool
	for {
		// A value at b[i].
		if i >= len(b) {
			return i, false
		}
		switch b[i] {
		case '"':
			if i, _, ok = scanString(b, i+1); !ok {
				return i, false
			}
		case '{':
			i = skipSpace(b, i+1)
			if i < len(b) && b[i] == '}' {
				i++
				break
			}
			open = append(open, '}')
			if i, ok = memberName(b, i); !ok {
				return i, false
			}
			continue
		case '[':
			i = skipSpace(b, i+1)
			if i < len(b) && b[i] == ']' {
				i++
				break
			}
			open = append(open, ']')
			continue
		case 't':
			if i, ok = word(b, i, "true"); !ok {
				return i, false
			}
		case 'f':
			if i, ok = word(b, i, "false"); !ok {
				return i, false
			}
		case 'n':
			if i, ok = word(b, i, "null"); !ok {
				return i, false
			}
		default:
			if i, ok = number(b, i); !ok {
				return i, false
			}
		}
		// After a value: close what ends here, then find the next value.
		for {
			if len(open) == 0 {
				return i, true
			}
			i = skipSpace(b, i)
			if i >= len(b) {
				return i, false
			}
			closer := open[len(open)-1]
			if b[i] == closer {
				open = open[:len(open)-1]
				i++
				continue
			}
			if b[i] != ',' {
				return i, false
			}
			i = skipSpace(b, i+1)
			if closer == '}' {
				if i, ok = memberName(b, i); !ok {
					return i, false
				}
			}
			break
		}
	}
}

// memberName checks `"name" :` at b[i] and returns the index of the
// value after it (white space skipped).
func memberName(b []byte, i int) (int, bool) {
	if i >= len(b) || b[i] != '"' {
		return i, false
	}
	i, _, ok := scanString(b, i+1)
	if !ok {
		return i, false
	}
	i = skipSpace(b, i)
	if i >= len(b) || b[i] != ':' {
		return i, false
	}
	return skipSpace(b, i+1), true
}

func word(b []byte, i int, w string) (int, bool) {
	if len(b)-i < len(w) || string(b[i:i+len(w)]) != w {
		return i, false
	}
	return i + len(w), true
}

// number checks a JSON number at b[i]: an optional minus, 0 or digits not
// starting with 0, an optional fraction, an optional exponent.
func number(b []byte, i int) (int, bool) {
	if i < len(b) && b[i] == '-' {
		i++
	}
	if i >= len(b) || b[i] < '0' || b[i] > '9' {
		return i, false
	}
	if b[i] == '0' {
		i++
	} else {
		i = skipDigits(b, i)
	}
	if i < len(b) && b[i] == '.' {
		j := skipDigits(b, i+1)
		if j == i+1 {
			return j, false
		}
		i = j
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		j := skipDigits(b, i)
		if j == i {
			return j, false
		}
		i = j
	}
	return i, true
}

func skipDigits(b []byte, i int) int {
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		i++
	}
	return i
}

// Word-at-a-time constants: a byte repeated in each of eight lanes.
const (
	lanes1    = 0x0101010101010101
	lanesHigh = 0x8080808080808080
)

// scanString checks the rest of a string whose opening quote is just
// before b[i]: no byte below 0x20, only the escapes JSON has. It returns
// the index after the closing quote and whether any escape was seen.
// Runs of plain bytes are passed eight at a time, and the first special
// byte in a word is found from its flag bit.
func scanString(b []byte, i int) (end int, esc bool, ok bool) {
	for {
		for {
			if len(b)-i < 8 {
				// The last few bytes, one at a time.
				for i < len(b) && b[i] >= 0x20 && b[i] != '"' && b[i] != '\\' {
					i++
				}
				if i >= len(b) {
					return i, esc, false
				}
				break
			}
			w := binary.LittleEndian.Uint64(b[i:])
			// A lane is flagged when it is below 0x20, a quote or a
			// backslash (the usual has-less / has-zero bit tricks; one
			// mask by ^w does for the three, as a lane whose byte is
			// 0x80 or more is one whose byte xor a quote or a backslash
			// is, and those are never special). A borrow can flag a lane
			// above a flagged one, never below: the lowest flag is the
			// first special byte.
			ctl, quote, back := w-lanes1*0x20, (w^(lanes1*'"'))-lanes1, (w^(lanes1*'\\'))-lanes1
			if m := (ctl | quote | back) &^ w & lanesHigh; m != 0 {
				i += bits.TrailingZeros64(m) >> 3
				break
			}
			i += 8
		}
		// b[i] is a quote, a backslash or a control byte.
		switch b[i] {
		case '"':
			return i + 1, esc, true
		case '\\':
			esc = true
			if i+1 >= len(b) {
				return i, esc, false
			}
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if len(b)-i < 6 || !isHex(b[i+2]) || !isHex(b[i+3]) || !isHex(b[i+4]) || !isHex(b[i+5]) {
					return i, esc, false
				}
				i += 6
			default:
				return i, esc, false
			}
		default:
			return i, esc, false
		}
	}
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}
