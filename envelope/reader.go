package envelope

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/evcap/evcap/internal/lines"
	"github.com/tidwall/gjson"
)

// LineError is a problem with one line of a capture. It names the file, the
// 1-based line number and, when the line got far enough to tell, the
// record's sequence number.
type LineError struct {
	File     string
	Line     int64
	Sequence int64
	Err      error
}

func (e *LineError) Error() string {
	if e.Sequence > 0 {
		return fmt.Sprintf("%s:%d: sequence %d: %v", e.File, e.Line, e.Sequence, e.Err)
	}
	return fmt.Sprintf("%s:%d: %v", e.File, e.Line, e.Err)
}

func (e *LineError) Unwrap() error { return e.Err }

// Upgrade rewrites one record line of schema version N into version N+1.
type Upgrade func(line []byte) ([]byte, error)

// ReaderOptions configure a Reader.
type ReaderOptions struct {
	// Upgrades maps a schema version N to the function that lifts a line of
	// version N to N+1. Lines of older versions are upgraded step by step
	// to SchemaVersion; anything else is ErrUnsupportedVersion.
	Upgrades map[int]Upgrade
}

// Reader streams records from a capture, one line at a time, in memory
// proportional to the longest line.
type Reader struct {
	lr     *lineSource
	name   string
	opts   ReaderOptions
	done   bool
	scan   lineScanner
	shared Record
}

// NewReader reads records from r; name is used in error messages (a file
// name, or "-" for standard input).
func NewReader(r io.Reader, name string, opts ReaderOptions) *Reader {
	return &Reader{lr: newLineSource(r), name: name, opts: opts}
}

// Next returns the next record. The record is freshly allocated and owned by
// the caller (its strings may be shared with other records the Reader
// returned: strings cannot change). Errors:
//   - io.EOF at the end;
//   - a *LineError wrapping ErrInvalidLine or ErrUnsupportedVersion for a
//     bad line: the Reader stays usable and the next call reads on;
//   - a *LineError wrapping ErrTornLine when the capture ends without a
//     final newline (after every complete record was returned), then io.EOF.
func (r *Reader) Next() (*Record, error) { return r.next(false) }

// NextShared is Next without copying the payload: the record it returns,
// its Payload, its Redactions and its Extra fields belong to the Reader
// and stay valid only until the next call to Next or NextShared, which
// may overwrite them. Its strings and its Cause are the caller's to keep.
// It is for a caller that looks at each record once and keeps nothing, or
// copies (Record.Clone) what it keeps. Errors and records are otherwise
// the same as Next's.
func (r *Reader) NextShared() (*Record, error) { return r.next(true) }

func (r *Reader) next(shared bool) (*Record, error) {
	if r.done {
		return nil, io.EOF
	}
	for {
		line, err := r.lr.Next()
		if errors.Is(err, lines.ErrTorn) {
			r.done = true
			return nil, &LineError{File: r.name, Line: r.lr.Line(), Sequence: lineSequence(line), Err: ErrTornLine}
		}
		if err != nil {
			if err == io.EOF {
				r.done = true
				return nil, io.EOF
			}
			return nil, fmt.Errorf("%s: read: %w", r.name, err)
		}
		if len(line) == 0 || (len(line) == 1 && line[0] == '\r') {
			// Tolerate blank lines (an editor's trailing newline).
			continue
		}
		// Most lines have the plain shape evcap writes and are read in one
		// pass; the rest (older versions, odd spellings, bad lines) go the
		// general way, which also words every error.
		rec := &r.shared
		if !shared {
			rec = new(Record)
		}
		if r.scan.scanRecord(line, rec, shared) && rec.SchemaVersion == SchemaVersion {
			return rec, nil
		}
		slow, err := parseUpgraded(r.opts, line)
		if err != nil {
			return nil, &LineError{File: r.name, Line: r.lr.Line(), Sequence: lineSequence(line), Err: err}
		}
		return slow, nil
	}
}

// Line is the 1-based line number of the record (or error) last returned.
func (r *Reader) Line() int64 { return r.lr.Line() }

// lineSequence is the sequence number a bad line's error names: its
// "sequence" member when gjson finds a number there, else 0.
func lineSequence(line []byte) int64 {
	if seq := gjson.GetBytes(line, "sequence"); seq.Type == gjson.Number {
		return seq.Int()
	}
	return 0
}

// parseLine reads one non-blank line into rec, whose Payload and Extra
// values then point into line (as NextShared's do): in one pass when the
// line has the plain shape, else the general way (parseUpgraded), which
// also words every error.
func parseLine(sc *lineScanner, opts ReaderOptions, line []byte, rec *Record) error {
	if sc.scanRecord(line, rec, true) && rec.SchemaVersion == SchemaVersion {
		return nil
	}
	slow, err := parseUpgraded(opts, line)
	if err != nil {
		return err
	}
	*rec = *slow
	return nil
}

// parseUpgraded reads a line of any schema version the upgrades in opts
// lift to SchemaVersion, the general way.
func parseUpgraded(opts ReaderOptions, line []byte) (*Record, error) {
	if !gjson.ValidBytes(line) {
		return nil, fmt.Errorf("%w: not JSON", ErrInvalidLine)
	}
	v := gjson.GetBytes(line, "schemaVersion")
	if v.Type != gjson.Number {
		return nil, fmt.Errorf("%w: schemaVersion missing or not a number", ErrInvalidLine)
	}
	version := int(v.Int())
	for version != SchemaVersion {
		up, ok := opts.Upgrades[version]
		if !ok || version > SchemaVersion {
			return nil, fmt.Errorf("%w %d (this evcap reads %d)", ErrUnsupportedVersion, version, SchemaVersion)
		}
		next, err := up(line)
		if err != nil {
			return nil, fmt.Errorf("upgrade from schemaVersion %d: %w", version, err)
		}
		line = next
		nv := int(gjson.GetBytes(line, "schemaVersion").Int())
		if nv != version+1 {
			return nil, fmt.Errorf("upgrade from schemaVersion %d produced version %d", version, nv)
		}
		version = nv
	}
	return parseRecordSlow(line)
}

// ParseRecord decodes one current-version record line (without its
// newline). The payload and extra fields are copied verbatim.
func ParseRecord(line []byte) (*Record, error) {
	var s lineScanner
	rec := &Record{}
	if s.scanRecord(line, rec, false) {
		return rec, nil
	}
	return parseRecordSlow(line)
}

// parseRecordSlow is ParseRecord for any line: it walks the line with
// gjson (which the caller has validated) and holds the format's rules and
// their error messages. scanRecord takes the common lines a faster way to
// the same result.
func parseRecordSlow(line []byte) (*Record, error) {
	root := gjson.ParseBytes(line)
	if !root.IsObject() {
		return nil, fmt.Errorf("%w: not a JSON object", ErrInvalidLine)
	}
	rec := &Record{}
	var perr error
	seen := 0
	str := func(key string, val gjson.Result, dst *string) bool {
		if val.Type != gjson.String {
			perr = fmt.Errorf("%w: %s is not a string", ErrInvalidLine, key)
			return false
		}
		*dst = val.String()
		return true
	}
	root.ForEach(func(k, val gjson.Result) bool {
		key := k.String()
		switch key {
		case "schemaVersion":
			rec.SchemaVersion = int(val.Int())
			seen |= 1 << 0
		case "captureId":
			seen |= 1 << 1
			return str(key, val, &rec.CaptureID)
		case "sequence":
			if val.Type != gjson.Number || val.Int() < 1 || float64(val.Int()) != val.Float() {
				perr = fmt.Errorf("%w: sequence must be a positive integer", ErrInvalidLine)
				return false
			}
			rec.Sequence = val.Int()
			seen |= 1 << 2
		case "timestamp":
			seen |= 1 << 3
			return str(key, val, &rec.Timestamp)
		case "provider":
			seen |= 1 << 4
			return str(key, val, &rec.Provider)
		case "sessionId":
			seen |= 1 << 5
			return str(key, val, &rec.SessionID)
		case "turnId":
			seen |= 1 << 6
			return str(key, val, &rec.TurnID)
		case "stage":
			seen |= 1 << 7
			var s string
			if !str(key, val, &s) {
				return false
			}
			rec.Stage = Stage(s)
		case "eventType":
			seen |= 1 << 8
			return str(key, val, &rec.EventType)
		case "payload":
			seen |= 1 << 9
			rec.Payload = append(json.RawMessage(nil), val.Raw...)
		case "redactions":
			seen |= 1 << 10
			if !val.IsArray() {
				perr = fmt.Errorf("%w: redactions is not an array", ErrInvalidLine)
				return false
			}
			rec.Redactions = []Redaction{}
			if err := json.Unmarshal([]byte(val.Raw), &rec.Redactions); err != nil {
				perr = fmt.Errorf("%w: redactions: %v", ErrInvalidLine, err)
				return false
			}
		case "model":
			return str(key, val, &rec.Model)
		case "agent":
			return str(key, val, &rec.Agent)
		case "permissionMode":
			return str(key, val, &rec.PermissionMode)
		case "cwdHash":
			return str(key, val, &rec.CwdHash)
		case "projectHash":
			return str(key, val, &rec.ProjectHash)
		case "source":
			return str(key, val, &rec.Source)
		case "notes":
			return str(key, val, &rec.Notes)
		case "cause":
			if !val.IsArray() {
				perr = fmt.Errorf("%w: cause is not an array", ErrInvalidLine)
				return false
			}
			for _, c := range val.Array() {
				if c.Type != gjson.Number || c.Int() < 1 {
					perr = fmt.Errorf("%w: cause holds a non-sequence value %s", ErrInvalidLine, c.Raw)
					return false
				}
				rec.Cause = append(rec.Cause, c.Int())
			}
		default:
			rec.Extra = append(rec.Extra, Field{Key: key, Value: append(json.RawMessage(nil), val.Raw...), RawKey: append(json.RawMessage(nil), k.Raw...)})
		}
		return true
	})
	if perr != nil {
		return nil, perr
	}
	if missing := missingFields(seen); missing != "" {
		return nil, fmt.Errorf("%w: missing required field %s", ErrInvalidLine, missing)
	}
	if !rec.Stage.Valid() {
		return nil, fmt.Errorf("%w: unknown stage %q", ErrInvalidLine, rec.Stage)
	}
	return rec, nil
}

// RequiredFields returns the fields every record has, in file order (a
// fresh slice each call, so no importer can change what the reader checks).
func RequiredFields() []string { return append([]string(nil), requiredFields...) }

var requiredFields = []string{"schemaVersion", "captureId", "sequence", "timestamp", "provider",
	"sessionId", "turnId", "stage", "eventType", "payload", "redactions"}

func missingFields(seen int) string {
	for i, name := range requiredFields {
		if seen&(1<<i) == 0 {
			return name
		}
	}
	return ""
}
