package sanitize

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/evcap/evcap/envelope"
	"github.com/evcap/evcap/internal/jsonwalk"
	"github.com/evcap/evcap/providers"
	"github.com/evcap/evcap/redact"
	"github.com/tidwall/gjson"
)

// FixedCaptureID is the captureId of every sanitized capture (a valid ULID
// at time zero), so that a capture recorded twice sanitizes to the same
// bytes.
const FixedCaptureID = "00000000000000000000000000"

// DefaultMaxHeld bounds the bytes of records held back while a block's
// stream waits for more text (see Options.MaxHeld).
const DefaultMaxHeld = 4 << 20

// streamBatch is how many bytes of deltas a block's stream holds before
// it looks at them (redact.Stream.Batch): with deltas of a few words, a
// look per delta spent more on scanning the context and probing the tail
// again than on the delta itself.
const streamBatch = 4 << 10

// batchHeld bounds the bytes of records that wait behind a batching
// stream's held deltas (blocks.releaseHead).
const batchHeld = 64 << 10

// ErrInvalidCapture is wrapped by errors about input that is not a capture
// sanitize can rewrite (a line that is not a valid record).
var ErrInvalidCapture = errors.New("not a valid capture")

// Options configure Sanitize. Paths are the recording machine's real
// values; the package never looks them up itself (cmd/evcap passes $HOME,
// the working directory and os.TempDir() as defaults).
type Options struct {
	// Home is the home directory, written as <HOME>.
	Home string
	// Project is the project root, written as <PROJECT>. When set it wins
	// over the working directory the capture itself names (capture.start
	// cwd, Claude system/init cwd, opencode session directory).
	Project string
	// DefaultProject is used when neither Project nor the capture names a
	// project root.
	DefaultProject string
	// Temp lists temporary directories, written as <TMP>.
	Temp []string

	// DropTimes empties the timestamp field instead of writing an offset
	// from the capture start, and moves every time inside payloads to Epoch.
	DropTimes bool
	// PrivateText replaces free text (text and thinking, streamed and
	// completed, prompts, tool outputs) with placeholder text of the same
	// length in runes that keeps whitespace, newlines and chunk boundaries.
	PrivateText bool

	// MaxString and Config are passed to the redactor (redact.Options).
	MaxString int
	Config    redact.Config

	// Lookahead is how many bytes of released text each block's
	// redact.Stream keeps as context; 0 means redact.DefaultLookahead.
	Lookahead int
	// MaxHeld bounds the bytes of records held back waiting for a block's
	// stream; when exceeded, the block holding the oldest record is ended
	// early. 0 means DefaultMaxHeld.
	MaxHeld int
}

// Report says what Sanitize did.
type Report struct {
	Records    int64
	Redactions int    // ledger entries added
	Pseudonyms int    // distinct volatile ids replaced
	Project    string // the project root used ("" when none)
	// EarlyFlushes counts the times a block was released in parts because
	// MaxHeld was reached. The block goes on (redact.Stream.Cut): text held
	// because it could start a secret is replaced, and so is what continues
	// it, so a secret split there loses every piece.
	EarlyFlushes int
	// PartialRedactions counts the early releases that replaced held text
	// because it could have started a secret (it may have been ordinary).
	PartialRedactions int
	// TornLine is set when the input ended with a torn line, which was
	// left out.
	TornLine bool
}

// Sanitize reads the capture r (name is used in errors), and writes the
// sanitized capture to w, one record per line, same sequence numbers and
// stages. It streams, reading r once: memory is bounded by the open
// blocks' lookahead and MaxHeld plus the longest line, not by the size of
// the capture. When r is an io.ReadSeeker (a file), the project root the
// capture names applies to the records before the one naming it too (see
// the package doc, "Project root").
//
// Sanitize is byte-deterministic and idempotent: the same input and
// options give the same bytes, and sanitizing the output again gives it
// back unchanged.
func Sanitize(r io.Reader, name string, w io.Writer, opts Options) (Report, error) {
	return SanitizeContext(context.Background(), r, name, w, opts)
}

// SanitizeContext is Sanitize that stops when ctx is done: it checks ctx
// before each record and returns its cause, having written what it had
// sanitized so far.
//
// r is read ahead by a goroutine of its own (see pipeline.go). When
// sanitizing stops early (ctx, an invalid record, a failed write), that
// goroutine may still be inside a Read of r, waiting for input a pipe has
// not sent yet; SanitizeContext does not wait for it, and once that Read
// returns it reads no more.
func SanitizeContext(ctx context.Context, r io.Reader, name string, w io.Writer, opts Options) (Report, error) {
	return sanitizeContext(ctx, r, name, w, opts, streamBatch)
}

// sanitizeContext is SanitizeContext with the blocks' streams batching
// batch bytes (redact.Stream.Batch; 0 looks at every delta).
func sanitizeContext(ctx context.Context, r io.Reader, name string, w io.Writer, opts Options, batch int) (Report, error) {
	s, err := newSanitizer(opts, batch)
	if err != nil {
		return Report{}, err
	}
	rd := envelope.NewReader(r, name, envelope.ReaderOptions{})
	var ahead []held
	if rs, ok := r.(io.ReadSeeker); ok && opts.Project == "" {
		if start, err := rs.Seek(0, io.SeekCurrent); err == nil {
			var settled bool
			ahead, settled, err = s.lookahead(ctx, rd)
			if err != nil {
				return Report{}, err
			}
			if !settled {
				if err := s.search(ctx, rs, start, name); err != nil {
					return Report{}, err
				}
				rd = envelope.NewReader(r, name, envelope.ReaderOptions{})
			}
		}
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	s.out = bw
	pp := s.startPrep(ctx, rd, ahead)
	defer pp.stop(false)
	for {
		if err := context.Cause(ctx); err != nil {
			return s.rep, err
		}
		h := pp.take(ctx)
		if h == nil {
			if err := context.Cause(ctx); err != nil {
				return s.rep, err
			}
			break // the end of the input
		}
		rec, err := h.rec, h.err
		if errors.Is(err, envelope.ErrTornLine) {
			s.rep.TornLine = true
			continue
		}
		if err != nil {
			return s.rep, fmt.Errorf("sanitize: %w: %w", ErrInvalidCapture, err)
		}
		if err := s.add(h); err != nil {
			return s.rep, fmt.Errorf("sanitize %s:%d: sequence %d: %w", name, h.line, rec.Sequence, err)
		}
	}
	// The reading stage has ended: what it set is this goroutine's now.
	pp.stop(true)
	s.blocks.flush("")
	if err := s.emit(); err != nil {
		return s.rep, err
	}
	s.rep.Pseudonyms = s.ids.len()
	s.rep.Project = s.project
	if err := bw.Flush(); err != nil {
		return s.rep, fmt.Errorf("sanitize %s: write: %w", name, err)
	}
	return s.rep, nil
}

// search finds the project root in the file rs from start on (see
// searchProject) and goes back to start.
func (s *sanitizer) search(ctx context.Context, rs io.ReadSeeker, start int64, name string) error {
	if _, err := rs.Seek(start, io.SeekStart); err != nil {
		return fmt.Errorf("sanitize %s: rewind: %w", name, err)
	}
	if err := s.searchProject(ctx, rs, name); err != nil {
		return err
	}
	if _, err := rs.Seek(start, io.SeekStart); err != nil {
		return fmt.Errorf("sanitize %s: rewind: %w", name, err)
	}
	return nil
}

// pathRules are the redact rules whose ledger entries lose their length.
var pathRules = map[string]bool{redact.RulePathHome: true, redact.RulePathProject: true, redact.RulePathTemp: true}

type payloadKind int

const (
	kindJSON       payloadKind = iota // payload is a JSON object or array (or scalar)
	kindSSE                           // payload is a string "data: <JSON>"
	kindText                          // payload is a string of plain text
	kindLegacyJSON                    // legacy marker with a JSON value after it
)

// item is one record on its way through: taken apart, redacted, maybe
// waiting for its delta's stream, then put back together.
type item struct {
	rec    *envelope.Record
	kind   payloadKind
	prefix string // text before body in the payload string (SSE "data: ", legacy "[MARKER] ")
	body   []byte // the JSON being rewritten (kindJSON, kindSSE, kindLegacyJSON) or the text
	dirty  bool   // body differs from the original
	ledger []envelope.Redaction
	hole   *hole
	size   int
	// The rules' redaction of a JSON body (done by the redacting stage,
	// with the redactor of when the record was read): its output, whether
	// it differs from body, its findings, its error. Pseudonyms, times,
	// private text and the delta's chunk are applied to it when the
	// record is finished.
	red      []byte
	redDirty bool
	redFind  []redact.Finding
	redErr   error
	// cands are the tokens of red finishing may rewrite; candErr is the
	// error finding them gave (cands.go).
	cands   []cand
	candErr error
	// hbuf is where hole points, when it is set.
	hbuf hole
}

// newItem is an empty item: one finished before (its ledger's array
// kept), or a new one.
func (s *sanitizer) newItem() *item {
	n := len(s.spare)
	if n == 0 {
		return &item{}
	}
	it := s.spare[n-1]
	s.spare[n-1] = nil
	s.spare = s.spare[:n-1]
	*it = item{ledger: it.ledger[:0], cands: it.cands[:0]}
	return it
}

type sanitizer struct {
	opts    Options
	project string
	// projectKeys are the keys a record names its project root by
	// (projectKeys()).
	projectKeys []string
	// red is the redactor of the records being read (the reading stage's:
	// it changes when a record names the project root); cur is the one
	// of the last record added (the finishing stage's).
	red *redact.Redactor
	cur *redact.Redactor
	obs *observer
	// clean holds envelope field values in which cleanRed found nothing
	// to replace (envelopeFields).
	clean    map[string]struct{}
	cleanRed *redact.Redactor
	ids      *ids
	clock    clock
	blocks   *blocks
	queue    fifo[*item] // waiting (emit)
	spare    []*item     // finished items, for reuse
	held     int
	maxHeld  int
	out      *bufio.Writer
	line     []byte
	rep      Report
	// fin is the output of the last record finished (rewrite), valid
	// until the next one is finished, which is after it is written; dec
	// is rewrite's decoding buffer, rw the ids' replacement text.
	fin, dec, rw []byte
	// sidIn and sidOut are the last session id field learned as an id and
	// its pseudonym (records repeat it).
	sidIn, sidOut string
}

func newSanitizer(opts Options, batch int) (*sanitizer, error) {
	s := &sanitizer{opts: opts, ids: newIDs(), clock: clock{drop: opts.DropTimes}, maxHeld: opts.MaxHeld,
		projectKeys: providers.ProjectKeys()}
	if s.maxHeld <= 0 {
		s.maxHeld = DefaultMaxHeld
	}
	s.project = opts.Project
	if s.project == "" {
		s.project = opts.DefaultProject
	}
	if err := s.rebuild(); err != nil {
		return nil, err
	}
	s.cur = s.red
	s.obs = newObserver()
	s.clean = map[string]struct{}{}
	s.blocks = newBlocks(func() *redact.Redactor { return s.cur }, opts.Lookahead)
	s.blocks.follow = true
	s.blocks.batch = batch
	return s, nil
}

func (s *sanitizer) rebuild() error {
	r, err := redact.New(redact.Options{Home: s.opts.Home, Project: s.project, Temp: s.opts.Temp,
		MaxString: s.opts.MaxString, Config: s.opts.Config})
	if err != nil {
		return fmt.Errorf("sanitize: %w", err)
	}
	s.red = r
	return nil
}

// split takes the JSON (or text) to rewrite out of a record's payload.
func split(rec *envelope.Record) (payloadKind, string, []byte) {
	p := rec.Payload
	if len(p) == 0 || p[0] != '"' {
		return kindJSON, "", p
	}
	dec, err := decodeLiteralBytes(p)
	if err != nil {
		return kindText, "", nil
	}
	// dec is the record's own and nobody writes to it: the prefix and the
	// body are pieces of it, not copies.
	str := bytesString(dec)
	switch rec.Stage {
	case envelope.StageNativeIn:
		if rest, ok := strings.CutPrefix(str, "data:"); ok {
			body := strings.TrimLeft(rest, " ")
			if gjson.Valid(body) && len(body) > 0 && (body[0] == '{' || body[0] == '[') {
				return kindSSE, str[:len(str)-len(body)], dec[len(str)-len(body):]
			}
		}
	case envelope.StageLegacyOut:
		if strings.HasPrefix(str, "[") {
			if i := strings.Index(str, "] "); i > 0 && !strings.ContainsAny(str[:i], " ") {
				body := str[i+2:]
				if gjson.Valid(body) {
					return kindLegacyJSON, str[:i+2], dec[i+2:]
				}
			}
		}
	}
	return kindText, "", dec
}

func marker(prefix string) string { return strings.TrimSuffix(prefix, " ") }

// add takes one record in (taken apart, observed and redacted by the
// stages before, see pipeline.go): feeds its delta to its block and writes
// out every record that no longer waits.
func (s *sanitizer) add(p *prepped) error {
	rec := p.rec
	s.rep.Records++
	s.clock.begin(rec.Timestamp)
	if p.addErr != nil {
		return p.addErr
	}
	s.cur = p.red
	kind := p.kind
	it := s.newItem()
	it.rec, it.kind, it.prefix, it.body, it.size = rec, kind, p.prefix, p.body, len(rec.Payload)+256
	it.dirty, it.ledger = p.binary, append(it.ledger, p.utf...)
	d := p.d
	if p.flushText {
		s.blocks.flush("text|" + rec.EventType)
	}
	for _, e := range d.ends {
		s.blocks.flush(e)
	}

	var findings []redact.Finding
	switch p.work {
	case workText:
		findings = p.findings
		if p.changed {
			it.body, it.dirty = p.out, true
		}
	case workJSON:
		if p.walkErr != nil {
			return p.walkErr
		}
		it.red, it.redDirty, it.redFind, it.redErr, it.candErr = p.out, p.changed, p.findings, p.redErr, p.candErr
		it.cands, p.cands = p.cands, it.cands[:0]
	}
	s.addFindings(it, findings, d.isDelt, d.path)
	if d.isDelt {
		it.hbuf = hole{key: d.key, path: d.path, origLen: len(d.text), line: kind == kindText}
		it.hole = &it.hbuf
	}
	s.queue.push(it)
	s.held += it.size
	if d.isDelt {
		s.blocks.push(it.hole, d.text)
	}
	return s.emit()
}

// addFindings adds a record's redaction findings to its ledger, but for
// those of its delta (at path): the stream's chunk replaces that string
// and has its own ledger.
func (s *sanitizer) addFindings(it *item, findings []redact.Finding, isDelt bool, path []string) {
	var dptr string
	if isDelt && len(findings) > 0 {
		dptr = pointer(path)
	}
	for _, f := range findings {
		if isDelt && f.Pointer == dptr {
			continue
		}
		it.ledger = append(it.ledger, s.entry(it.kind, f.Rule, f.Pointer, f.Count, f.OriginalLength))
	}
}

// walkable returns the error redacting body as JSON would give, which is
// nil for every body that reading and split accepted (valid by gjson)
// unless it nests deeper than jsonwalk.MaxDepth: only a body with more
// brackets than that is walked to find out.
func walkable(w *jsonwalk.Walker, body []byte) error {
	if bytes.Count(body, []byte("{"))+bytes.Count(body, []byte("[")) <= jsonwalk.MaxDepth {
		return nil
	}
	if _, _, err := w.Walk(body, jsonwalk.VisitorFunc(func(*jsonwalk.Walker, *jsonwalk.Token) error { return nil })); err != nil {
		return fmt.Errorf("%w: %w", redact.ErrNotJSON, err)
	}
	return nil
}

func (s *sanitizer) entry(kind payloadKind, rule, ptr string, count, n int) envelope.Redaction {
	if kind != kindJSON {
		ptr = "" // the payload is a string: pointers inside it do not address it
	}
	return envelope.Redaction{Rule: rule, Pointer: ptr, Count: count, OriginalLength: n}
}

// emit writes out the records at the head of the queue that are ready,
// ending blocks early when too much is held.
func (s *sanitizer) emit() error {
	defer s.queue.compact()
	for s.queue.len() > 0 {
		head := s.queue.front()
		if head.hole != nil && !head.hole.done {
			if s.blocks.releaseHead(head.hole, s.held, s.maxHeld, false) {
				continue
			}
			if s.held <= s.maxHeld {
				return nil
			}
			if s.blocks.releaseHead(head.hole, s.held, s.maxHeld, true) {
				continue
			}
			s.rep.EarlyFlushes++
			if s.blocks.cut(head.hole.key) {
				s.rep.PartialRedactions++
			}
		}
		s.queue.pop()
		s.held -= head.size
		if err := s.finish(head); err != nil {
			return err
		}
		s.spare = append(s.spare, head)
	}
	return nil
}

// finish puts a record back together: the delta's chunk, pseudonyms,
// times and private text applied, ledger appended, and writes it.
func (s *sanitizer) finish(it *item) error {
	rec := it.rec
	learn := rec.Stage == envelope.StageNativeIn || rec.Stage == envelope.StageMeta
	if it.kind != kindText {
		// The rules' redaction is done; the tokens the redacting stage
		// noted get ids, times, private text and the delta's chunk
		// (cands.go).
		if err := s.finishJSON(it, learn); err != nil {
			return err
		}
	}
	if h := it.hole; h != nil {
		for _, f := range h.chunk.Findings {
			it.ledger = append(it.ledger, s.entry(it.kind, f.Rule, pointer(h.path), f.Count, f.OriginalLength))
		}
		if h.line && len(h.chunk.Findings) > 0 {
			it.body, it.dirty = []byte(h.chunk.Text), true
		}
	}
	switch it.kind {
	case kindText:
		str := bytesString(it.body)
		if out, ok := s.ids.appendReplace(s.rw[:0], str); ok {
			s.rw = out
			str, it.dirty = bytesString(out), true
		}
		if it.dirty {
			rec.Payload = envelope.AppendJSONString(nil, str)
		}
	default:
		if it.dirty {
			if it.kind == kindJSON {
				rec.Payload = it.body
			} else {
				rec.Payload = envelope.AppendJSONString(nil, it.prefix+string(it.body))
			}
		}
	}
	it.ledger = append(it.ledger, s.envelopeFields(rec)...)
	s.rep.Redactions += len(it.ledger)
	rec.Redactions = append(rec.Redactions, it.ledger...)
	if rec.Redactions == nil {
		rec.Redactions = []envelope.Redaction{}
	}
	for i := range rec.Redactions {
		// How long a machine path was depends on the machine; a sanitized
		// capture must not.
		if pathRules[rec.Redactions[i].Rule] {
			rec.Redactions[i].OriginalLength = 0
		}
	}
	s.line = envelope.AppendRecord(s.line[:0], rec)
	_, err := s.out.Write(s.line)
	return err
}

// maxCleanFields bounds envelopeFields' memory of clean values (notes and
// unusual fields may differ on every record).
const maxCleanFields = 4096

// envelopeFields sanitizes the record's own fields and returns the ledger
// entries of what redaction changed there. The pointer of such an entry is
// the field's name behind "#" ("#/agent", "#/notes"; "#/<key>/…" inside an
// unknown field kept in Extra), so it cannot be mistaken for a pointer into
// the payload, which never starts with "#". provider, stage and the numbers
// are left as they are: they choose how the record is read.
func (s *sanitizer) envelopeFields(rec *envelope.Record) []envelope.Redaction {
	rec.CaptureID = FixedCaptureID
	rec.Timestamp = s.clock.envelope(rec.Timestamp)
	var ledger []envelope.Redaction
	if s.cleanRed != s.cur || len(s.clean) >= maxCleanFields {
		clear(s.clean)
		s.cleanRed = s.cur
	}
	redactField := func(name string, f *string) {
		if *f == "" {
			return
		}
		// Most records repeat their neighbours' fields (the session id,
		// the model, a few event types): a value that had nothing to
		// replace has nothing again while Text is outside a key block.
		if _, ok := s.clean[*f]; ok && !s.cur.TextKeyBlockOpen() {
			return
		}
		closed := !s.cur.TextKeyBlockOpen()
		out, found := s.cur.Text([]byte(*f))
		if len(found) == 0 && closed {
			s.clean[*f] = struct{}{}
		}
		for _, fd := range found {
			ledger = append(ledger, envelope.Redaction{Rule: fd.Rule, Pointer: "#/" + name, Count: fd.Count, OriginalLength: fd.OriginalLength})
		}
		if len(found) > 0 {
			*f = string(out)
		}
	}
	redactField("sessionId", &rec.SessionID)
	if rec.SessionID != "" {
		if rec.SessionID == s.sidIn {
			// Learned as a whole id before: its pseudonym does not change.
			rec.SessionID = s.sidOut
		} else if fam := family("session_id", rec.SessionID); fam != "" {
			s.ids.learn(fam, rec.SessionID)
			in := rec.SessionID
			rec.SessionID, _ = s.ids.replace(rec.SessionID)
			s.sidIn, s.sidOut = in, rec.SessionID
		} else {
			rec.SessionID, _ = s.ids.replace(rec.SessionID)
		}
	}
	rec.CwdHash, rec.ProjectHash = "", ""
	redactField("turnId", &rec.TurnID)
	redactField("eventType", &rec.EventType)
	redactField("model", &rec.Model)
	redactField("agent", &rec.Agent)
	redactField("permissionMode", &rec.PermissionMode)
	// source and notes are free text that may quote an id: they also get
	// the pseudonyms.
	redactField("source", &rec.Source)
	redactField("notes", &rec.Notes)
	for _, f := range []*string{&rec.Source, &rec.Notes} {
		if *f != "" {
			*f, _ = s.ids.replace(*f)
		}
	}
	for i := range rec.Extra {
		out, found, err := s.cur.JSON(rec.Extra[i].Value)
		if err != nil || len(found) == 0 {
			continue
		}
		rec.Extra[i].Value = out
		for _, fd := range found {
			ledger = append(ledger, envelope.Redaction{Rule: fd.Rule, Pointer: "#" + pointer([]string{rec.Extra[i].Key}) + fd.Pointer,
				Count: fd.Count, OriginalLength: fd.OriginalLength})
		}
	}
	return ledger
}

// maxString is the redactor's MaxString as sanitize sees it: text lines
// longer than it are cut by TextValue, so they do not join a block.
func (s *sanitizer) maxString() int {
	switch {
	case s.opts.Config.MaxString != 0:
		return s.opts.Config.MaxString
	case s.opts.MaxString > 0:
		return s.opts.MaxString
	case s.opts.MaxString < 0:
		return maxStreamedLine
	}
	return redact.DefaultMaxString
}
