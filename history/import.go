package history

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"runtime"
	"time"

	"github.com/evcap/evcap/capture"
	"github.com/evcap/evcap/envelope"
	"github.com/evcap/evcap/event"
	"github.com/evcap/evcap/providers"
	"github.com/evcap/evcap/redact"
	"github.com/tidwall/gjson"
)

// Options configure Import.
type Options struct {
	// Provider names the CLI that stored the session (required).
	Provider string
	// Redactor is applied to every payload; nil imports unredacted, which
	// only tests should do.
	Redactor *redact.Redactor
	// RedactorFor, when set, builds the redactor instead, once the
	// session's working directory is known (from its first entries; ""
	// when none names it), so that the project the CLI ran in, not the
	// directory evcap import runs in, becomes <PROJECT>.
	RedactorFor func(sessionCwd string) (*redact.Redactor, error)
	// Normalizer derives the normalized_out records; nil uses the
	// provider's history normalizer.
	Normalizer event.Normalizer
	// CaptureID is stamped on every record; empty makes a new ULID from
	// the first stored timestamp and Entropy.
	CaptureID string
	// Entropy for a new capture id; crypto/rand when nil.
	Entropy io.Reader
	// Now stamps records whose entry stored no time before any entry
	// that did; time.Now when nil.
	Now func() time.Time
	// EvcapVersion goes into capture.start.
	EvcapVersion string
	// Origin says where the session was read from (a path, a URL); it is
	// redacted and kept in capture.start's argv.
	Origin string
}

// Stats counts what Import read and wrote.
type Stats struct {
	Entries    int64 // stored entries read
	Native     int64 // native_in records written (one per entry)
	Normalized int64 // normalized_out records written
	Records    int64 // all records, capture.start and capture.end included
	Unknown    int64 // normalized events of kind unknown
	Redacted   int64 // redaction ledger entries
	Torn       bool  // the last stored line was unfinished
	SessionID  string
}

// Import reads every entry of src and writes a capture of them to w (see
// the package doc). It stops early only when ctx is done or w fails; a
// torn last entry is imported and reported in Stats.
func Import(ctx context.Context, src Entries, w io.Writer, o Options) (Stats, error) {
	var st Stats
	if o.Provider == "" {
		return st, errors.New("import: no provider")
	}
	norm := o.Normalizer
	if norm == nil {
		var err error
		if norm, err = NewNormalizer(o.Provider); err != nil {
			return st, fmt.Errorf("import: %w", err)
		}
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	var cwdPaths []string
	if d, ok := providers.Lookup(o.Provider); ok {
		cwdPaths = d.Sessions.ProjectPaths
	}
	ahead, aheadErr := lookAhead(src, cwdPaths)
	if aheadErr != nil && !errors.Is(aheadErr, ErrTornEntry) && !errors.Is(aheadErr, io.EOF) {
		return st, fmt.Errorf("import: %w", aheadErr)
	}
	cwd := sessionCwd(cwdPaths, ahead)
	if o.RedactorFor != nil {
		red, err := o.RedactorFor(cwd)
		if err != nil {
			return st, fmt.Errorf("import: %w", err)
		}
		o.Redactor = red
	}
	var first Entry
	if len(ahead) > 0 {
		first = ahead[0]
	}
	startAt := first.Time
	if startAt.IsZero() {
		startAt = o.Now()
	}
	id := o.CaptureID
	if id == "" {
		ent := o.Entropy
		if ent == nil {
			ent = rand.Reader
		}
		var err error
		if id, err = envelope.NewCaptureID(startAt, ent); err != nil {
			return st, fmt.Errorf("import: capture id: %w", err)
		}
	}
	im := &importer{o: o, w: envelope.NewWriter(w, envelope.WriterOptions{CaptureID: id, Now: o.Now}),
		norm: norm, at: startAt, st: &st}
	var argv []string
	if o.Origin != "" {
		argv = []string{"evcap", "import", "--provider", o.Provider, o.Origin}
	}
	im.meta(envelope.EventCaptureStart, start{Start: capture.Start{EvcapVersion: o.EvcapVersion, Provider: o.Provider,
		Argv: argv, CLIName: o.Provider, OS: runtime.GOOS, Arch: runtime.GOARCH}, Cwd: cwd})

	var ent Entry
	var err error
	next := func() (Entry, error) {
		if len(ahead) > 0 {
			e := ahead[0]
			ahead = ahead[1:]
			if len(ahead) == 0 && errors.Is(aheadErr, ErrTornEntry) {
				return e, aheadErr // the torn last entry
			}
			return e, nil
		}
		if aheadErr != nil {
			return Entry{}, aheadErr
		}
		return src.Next()
	}
	ent, err = next()
	for !errors.Is(err, io.EOF) {
		if cerr := ctx.Err(); cerr != nil {
			im.w.Close()
			return st, fmt.Errorf("import: %w", cerr)
		}
		torn := errors.Is(err, ErrTornEntry)
		if err != nil && !torn {
			im.w.Close()
			return st, fmt.Errorf("import: %w", err)
		}
		st.Entries++
		im.entry(ent)
		if torn {
			st.Torn = true
			break
		}
		ent, err = next()
	}
	im.events(norm.End())

	notes := []string{fmt.Sprintf("imported %d stored entries", st.Entries)}
	if st.Torn {
		notes = append(notes, "the last stored line was unfinished (the CLI was writing it)")
	}
	counts := im.w.Counts()
	counts[envelope.StageMeta]++
	end := capture.End{CleanEnd: !st.Torn, Counts: map[string]int64{}, Notes: notes}
	for k, v := range counts {
		end.Counts[string(k)] = v
	}
	im.meta(envelope.EventCaptureEnd, end)
	st.Records = im.w.Sequence()
	if err := im.w.Close(); err != nil {
		return st, fmt.Errorf("import: %w", err)
	}
	if im.err != nil {
		return st, fmt.Errorf("import: %w", im.err)
	}
	return st, nil
}

type importer struct {
	o    Options
	w    *envelope.Writer
	norm event.Normalizer
	at   time.Time // the latest stored time, for entries without one
	st   *Stats
	err  error
}

func (im *importer) write(rec *envelope.Record) int64 {
	rec.Provider, rec.SessionID, rec.Source = im.o.Provider, im.st.SessionID, Source
	rec.Timestamp = envelope.FormatTimestamp(im.at)
	im.st.Redacted += int64(len(rec.Redactions))
	seq, err := im.w.Write(rec)
	if err != nil && im.err == nil {
		im.err = err
	}
	return seq
}

func (im *importer) meta(eventType string, v any) {
	payload, err := envelope.MarshalPayload(v)
	if err != nil {
		payload = []byte("null")
	}
	var l []envelope.Redaction
	if im.o.Redactor != nil {
		if out, f, err := im.o.Redactor.JSON(payload); err == nil {
			payload, l = out, capture.Ledger(f)
		}
	}
	im.write(&envelope.Record{Stage: envelope.StageMeta, EventType: eventType, Payload: payload, Redactions: l})
}

// entry writes one stored entry and the events it gives.
func (im *importer) entry(e Entry) {
	if !e.Time.IsZero() {
		im.at = e.Time
	}
	line := e.Line
	var l []envelope.Redaction
	if im.o.Redactor != nil {
		var f []redact.Finding
		line, f = im.o.Redactor.Line(line)
		l = capture.Ledger(f)
	}
	payload, kind := envelope.EncodeNativeLine(line)
	eventType := envelope.EventNonJSON
	if kind == envelope.NativeJSON {
		eventType = capture.NativeEventType(line)
		if eventType == "json" {
			eventType = im.norm.Classify(line).NativeType
		}
	} else {
		payload = append([]byte(nil), payload...)
	}
	seq := im.write(&envelope.Record{Stage: envelope.StageNativeIn, EventType: eventType, Payload: payload, Redactions: l})
	im.st.Native++
	im.events(im.norm.Line(seq, line))
}

func (im *importer) events(evs []event.Event) {
	for _, ev := range evs {
		if ev.Kind == event.KindInit && im.st.SessionID == "" {
			im.st.SessionID = ev.SessionID
		}
		if ev.Kind == event.KindUnknown {
			im.st.Unknown++
		}
		cause := ev.Cause
		ev.Cause = nil
		payload, err := event.AppendPayload(nil, &ev)
		if err != nil {
			payload = []byte("null")
		}
		var l []envelope.Redaction
		if im.o.Redactor != nil {
			// The event comes from redacted entries; this catches text a
			// normalizer put together from pieces no entry held whole.
			if out, f, err := im.o.Redactor.JSON(payload); err == nil {
				payload, l = out, capture.Ledger(f)
			}
		}
		im.write(&envelope.Record{Stage: envelope.StageNormalizedOut, EventType: string(ev.Kind),
			Payload: payload, Redactions: l, Cause: cause})
		im.st.Normalized++
	}
}

// start is the capture.start payload of an import: capture.Start and the
// working directory the stored session names (where sanitize learns the
// project root from).
type start struct {
	capture.Start
	Cwd string `json:"cwd,omitempty"`
}

// aheadMax bounds how many entries Import reads before it writes anything,
// looking for the session's working directory.
const aheadMax = 16

// lookAhead reads up to aheadMax entries (copied: they outlive the next
// call), stopping early at the first that names a working directory. The
// error is the one that ended the reading (io.EOF, a torn entry), nil when
// more entries may follow.
func lookAhead(src Entries, cwdPaths []string) ([]Entry, error) {
	var out []Entry
	for len(out) < aheadMax {
		e, err := src.Next()
		if e.Line != nil && !errors.Is(err, io.EOF) {
			e.Line = append([]byte(nil), e.Line...)
			out = append(out, e)
		}
		if err != nil {
			return out, err
		}
		if sessionCwd(cwdPaths, out[len(out)-1:]) != "" {
			return out, nil
		}
	}
	return out, nil
}

// sessionCwd is the working directory the first of entries that names
// one stores, where the provider's descriptor says it is
// (Sessions.ProjectPaths: Claude Code on every entry, Codex in
// session_meta, opencode on assistant messages), or "".
func sessionCwd(paths []string, entries []Entry) string {
	for _, e := range entries {
		if len(paths) == 0 || !gjson.ValidBytes(e.Line) {
			continue
		}
		if dir := providers.ProjectAt(e.Line, paths); dir != "" {
			return dir
		}
	}
	return ""
}
