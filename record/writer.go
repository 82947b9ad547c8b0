package record

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/evcap/evcap/capture"
	"github.com/evcap/evcap/envelope"
	"github.com/evcap/evcap/event"
	"github.com/evcap/evcap/providers"
	"github.com/evcap/evcap/redact"
	"github.com/evcap/evcap/render/legacy"
)

// The pipeline is two goroutines. The first (pipeline.run) cuts the queued
// chunks into lines, detects the provider, redacts and puts the lines in
// arrival order (see order); the second (writer.run) writes the records,
// normalizes, derives the legacy markers and renders. The first hands the
// second a list of steps in exactly the order the one goroutine of before
// did them, so the capture is the same record for record; they only
// overlap in time. The hand-off is bounded (writerBatches batches of about
// batchBytes each), so a writer that falls behind holds the first
// goroutine, which stops releasing the queue, which holds the child: the
// backpressure of the queue, unchanged. When no more input is waiting and
// the writer has caught up, the first goroutine does the steps itself
// (under the writer's lock), so a slow agent costs one wake-up per line,
// not two.
const (
	writerBatches = 2
	batchBytes    = 256 << 10
)

type stepKind uint8

const (
	// stepLine writes a line whose turn has come (arrived).
	stepLine stepKind = iota
	stepGap
	stepNote
	stepOpen
	stepFinish
)

// step is one thing the writer does. Lines are copies the writer owns
// until the batch is given back.
type step struct {
	kind stepKind
	a    arrived
	gap  capture.Gap
	note string
	open *openInfo
	end  *finishInfo
}

// openInfo is what the pipeline knew when it opened the capture.
type openInfo struct {
	provider   string
	cliName    string
	cliVersion string
	preLines   int
}

// finishInfo is the pipeline's part of capture.end.
type finishInfo struct {
	stdoutLines, stdoutBytes, errLines, inLines int64
	dropped                                     int64
	tornStdout                                  bool
}

// batch is a run of steps with the bytes of their lines.
type batch struct {
	steps []step
	buf   []byte
	// held counts the bytes of the batch's lines, in buf or not.
	held int
}

// hold copies line into the batch's buffer (nil stays nil: the end of
// stdin).
func (b *batch) hold(line []byte) []byte {
	if line == nil {
		return nil
	}
	b.held += len(line)
	if len(line) > batchBytes {
		return append(make([]byte, 0, len(line)), line...)
	}
	if cap(b.buf)-len(b.buf) < len(line) {
		// The lines already held keep pointing into the old buffer.
		b.buf = make([]byte, 0, max(batchBytes+batchBytes/4, len(line)))
	}
	start := len(b.buf)
	b.buf = append(b.buf, line...)
	return b.buf[start:len(b.buf):len(b.buf)]
}

func (b *batch) size() int { return b.held }

// writer is the second goroutine of the pipeline: it owns the capture
// file, the normalizer, the legacy deriver and the renderer.
type writer struct {
	p     *pipeline // read only: its options, console, stats and clock
	steps chan *batch
	free  chan *batch
	done  chan struct{}
	// mu is held while steps are done, by the writer goroutine or (see
	// inline) the pipeline's; pending counts the batches sent and not
	// done. pending is not under mu: send must not wait while the writer
	// does a batch (it held the pipeline 60 ms of a 64 MB run's 780).
	mu      sync.Mutex
	pending atomic.Int64

	c          *capture.Capturer
	red        *redact.Redactor
	session    string
	provider   string
	cliVersion string
	norm       event.Normalizer
	// slab holds the events of the line being normalized when norm takes
	// its memory from a caller (event.SlabUser): they are written,
	// rendered and derived from before the next line, so one array
	// serves every line.
	slab       event.Slab
	deriver    *legacy.Deriver
	rend       Renderer
	renderErr  bool
	busy, idle bool

	curAt                   time.Time // arrival of the native line being normalized
	nativeSeen              int64
	warnedJSON, warnedQuiet bool
	// late counts normalized and legacy records the second redaction
	// still changed (see assembled).
	late  int
	notes []string
	err   error
	// scratch holds the legacy marker being written.
	scratch []byte
}

func newWriter(p *pipeline) *writer {
	w := &writer{p: p, steps: make(chan *batch, writerBatches), free: make(chan *batch, writerBatches+2),
		done: make(chan struct{})}
	return w
}

func (w *writer) run() {
	defer close(w.done)
	for b := range w.steps {
		w.mu.Lock()
		w.doAll(b)
		w.pending.Add(-1)
		w.mu.Unlock()
		select {
		case w.free <- b:
		default:
		}
	}
}

// doAll does the steps of b and empties it for reuse. The caller holds mu.
func (w *writer) doAll(b *batch) {
	for i := range b.steps {
		w.do(&b.steps[i])
		b.steps[i] = step{}
	}
	b.steps = b.steps[:0]
	if w.rend != nil {
		w.p.waits.begin(waitCall)
		w.p.con.flush()
		w.p.waits.end(waitCall)
	}
	if cap(b.buf) > 4*batchBytes {
		b.buf = nil
	}
	b.buf = b.buf[:0]
	b.held = 0
}

// inline does the steps of b on the caller's goroutine when the writer
// has nothing left to do, and reports whether it did: an agent that
// writes a line now and then is recorded without waking a second
// goroutine per line, which would cost more CPU than it saves.
func (w *writer) inline(b *batch) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	// Only the pipeline's goroutine sends, and the writer counts a
	// batch done under mu: with mu held, zero means every batch sent is
	// done.
	if w.pending.Load() > 0 {
		return false // earlier steps first
	}
	w.doAll(b)
	return true
}

// send hands b to the writer goroutine.
func (w *writer) send(b *batch) {
	w.pending.Add(1)
	w.steps <- b
}

func (w *writer) do(s *step) {
	switch s.kind {
	case stepNote:
		w.notes = append(w.notes, s.note)
	case stepOpen:
		w.open(s.open)
	case stepGap:
		if w.c != nil {
			w.c.GapWith(s.gap, capture.Stamp{At: s.a.at, Redacted: true})
		}
	case stepLine:
		if w.c != nil {
			w.write(&s.a)
		}
	case stepFinish:
		w.finish(s.end)
	}
}

func (w *writer) note(format string, args ...any) {
	w.notes = append(w.notes, fmt.Sprintf(format, args...))
}

// open creates the capture file, writes capture.start and makes the
// normalizer, the legacy deriver and the renderer.
func (w *writer) open(o *openInfo) {
	p := w.p
	w.provider, w.cliVersion = o.provider, o.cliVersion
	copts := capture.Options{Provider: o.provider, Now: p.opts.Now,
		WrapFile: func(f io.Writer) io.Writer { return timedWriter{w: f, wait: p.waits, k: waitFile} }}
	if obs := p.opts.Observer; obs != nil {
		copts.Observe = func(rec *envelope.Record) {
			p.waits.begin(waitCall)
			obs.Observe(rec)
			p.waits.end(waitCall)
		}
	}
	var c *capture.Capturer
	var err error
	if p.outFile != nil {
		c, err = capture.NewFile(p.outFile, copts)
	} else {
		// The trailing separator: a new file inside the directory, never
		// a file named like it.
		c, err = capture.Open(p.opts.Dir+string(os.PathSeparator), copts)
	}
	if err != nil {
		w.err = err
		fmt.Fprintf(p.con, "evcap: cannot record: %v\n", err)
		return
	}
	w.c, w.red = c, p.opts.Redactor
	if o.provider == "" {
		w.note("provider not detected from the first lines: nothing was normalized")
		w.warn("the agent's provider was not detected from its first %d stdout lines: nothing is normalized or rendered (give --provider)", o.preLines)
	} else if p.opts.NewNormalizer != nil {
		n, err := p.opts.NewNormalizer(o.provider)
		if err != nil {
			w.note("no normalizer: %v", err)
		} else {
			w.norm = n
			if su, ok := n.(event.SlabUser); ok {
				su.UseSlab(&w.slab)
			}
			w.deriver = legacy.New()
		}
	}
	if w.norm != nil && p.opts.NewRenderer != nil {
		w.rend = p.opts.NewRenderer(rendered{p.con})
	}
	w.c.MetaWith(envelope.EventCaptureStart, capture.Start{
		EvcapVersion: p.opts.EvcapVersion, Provider: o.provider, Argv: p.argv,
		CLIName: o.cliName, CLIVersion: o.cliVersion, OS: runtime.GOOS, Arch: runtime.GOARCH,
	}, w.redactedJSON(p.started))
}

// write records a line whose turn has come.
func (w *writer) write(a *arrived) {
	switch a.stream {
	case streamStderr:
		line, l := a.line, a.ledger
		if !a.viaRedactor && w.red != nil {
			var f []redact.Finding
			line, f = w.red.Text(line)
			l = capture.Ledger(f)
		}
		w.c.StderrWith(line, capture.Stamp{At: a.at, Redacted: true, Ledger: l})
	case streamRequest:
		w.c.RequestWith(a.line, w.redactedJSON(a.at))
	case streamStdin:
		if a.line == nil {
			w.c.InputClosed(capture.Stamp{At: a.at, Redacted: true})
			return
		}
		// Input is redacted line by line: stream-json input carries whole
		// messages, not deltas.
		line := a.line
		var l []envelope.Redaction
		if w.red != nil {
			var f []redact.Finding
			line, f = w.red.Line(line)
			l = capture.Ledger(f)
		}
		seq := w.c.InputWith(line, capture.Stamp{At: a.at, Redacted: true, Ledger: l})
		w.answer(seq, line, a.at)
	default:
		w.native(a.line, a.ledger, a.at, a.checkedJSON)
	}
}

// answer normalizes an input line that answers the agent: a stream-json
// control_response (the integration's reply to a permission request)
// becomes the permission's completed event. Other input (user messages,
// the integration's own control requests) is the integration's, not the
// agent's output, and is not normalized.
func (w *writer) answer(seq int64, line []byte, at time.Time) {
	if w.norm == nil || !looksJSON(line) || !envelope.Normalized(envelope.StageNativeOut, capture.NativeEventType(line)) {
		return
	}
	w.curAt = at
	for _, e := range w.norm.Line(seq, line) {
		w.emit(e)
	}
	w.slab.Reset()
}

// native records a redacted stdout line and normalizes it. The normalizer
// reads the line as recorded, so normalizing the capture's native_in again
// gives back its normalized_out. The events and markers derived from the
// line carry its arrival time.
func (w *writer) native(line []byte, l []envelope.Redaction, at time.Time, checked bool) {
	seq, isJSON := w.c.NativeWith(line, capture.Stamp{At: at, Redacted: true, Ledger: l, CheckedJSON: checked})
	if !w.warnedJSON && !isJSON && !looksJSON(line) {
		w.warnedJSON = true
		w.warn("stdout line %d is not JSON: is the agent's JSON output switched on (%s)?", w.nativeSeen+1, providers.JSONCommands())
	}
	w.nativeSeen++
	if w.norm == nil {
		return
	}
	w.curAt = at
	st := w.p.st
	before := st.events.Load()
	// A line stored as JSON was validated (by its redactor's walk or by
	// NativeWith): a normalizer that can take it so does not check it
	// again.
	var evs []event.Event
	if vl, ok := w.norm.(event.ValidLiner); ok && isJSON {
		evs = vl.LineValid(seq, line)
	} else {
		evs = w.norm.Line(seq, line)
	}
	for _, e := range evs {
		w.emit(e)
	}
	w.slab.Reset()
	if st.events.Load() == before && before == 0 && w.nativeSeen == quietLines && !w.warnedQuiet {
		w.warnedQuiet = true
		w.warn("%d stdout lines and no normalized event yet: the %s normalizer does not understand this output", quietLines, w.provider)
	}
}

// warn prints one line on the console when it happens (capture.end has the
// notes too); an evcap shim, which must leave stderr as it was, keeps
// quiet.
func (w *writer) warn(format string, args ...any) {
	if w.p.opts.Transparent {
		return
	}
	w.p.waits.begin(waitCall)
	defer w.p.waits.end(waitCall)
	w.p.con.clear()
	fmt.Fprintf(w.p.con, "evcap: warning: "+format+"\n", args...)
}

func (w *writer) emit(e event.Event) {
	if e.SessionID != "" && w.session == "" {
		w.session = e.SessionID
		w.c.SetSession(e.SessionID, "")
	}
	if e.Kind == event.KindInit && e.Version != "" && w.cliVersion == "" {
		w.cliVersion = e.Version
	}
	again := assembled(e) && w.red != nil
	st := capture.Stamp{At: w.curAt, Cause: e.Cause, Redacted: true}
	if again {
		st = w.redactedJSON(w.curAt)
		st.Cause = e.Cause
		st.Redact = w.countLate(st.Redact)
	}
	w.c.NormalizedWith(e, st)
	w.p.st.add(e)
	if w.rend != nil && !w.renderErr {
		w.p.waits.begin(waitCall)
		err := w.rend.Render(e)
		w.p.waits.end(waitCall)
		if err != nil {
			w.renderErr = true
			w.note("live rendering stopped: %v", err)
		}
	}
	if w.deriver != nil {
		for _, m := range w.deriver.Event(e) {
			w.legacy(m.Line, m.Cause, w.curAt, again)
		}
	}
	if e.Kind == event.KindStatus {
		switch e.Status {
		case "busy":
			w.busy = true
		case "idle":
			if w.busy && !w.idle {
				w.idle = true
				if w.p.opts.UntilIdle && w.p.onIdle != nil {
					w.p.onIdle()
				}
			}
		}
	}
}

// redactedJSON stamps a JSON payload with at, to be redacted as JSON
// (nothing when there is no redactor).
func (w *writer) redactedJSON(at time.Time) capture.Stamp {
	if w.red == nil {
		return capture.Stamp{At: at, Redacted: true}
	}
	red := w.red
	return capture.Stamp{At: at, Redact: func(payload []byte) ([]byte, []envelope.Redaction) {
		out, f, err := red.JSON(payload)
		if err != nil {
			return payload, nil
		}
		return out, capture.Ledger(f)
	}}
}

// countLate counts what a second redaction still finds.
func (w *writer) countLate(redact func([]byte) ([]byte, []envelope.Redaction)) func([]byte) ([]byte, []envelope.Redaction) {
	return func(payload []byte) ([]byte, []envelope.Redaction) {
		out, l := redact(payload)
		if len(l) > 0 {
			w.late++
		}
		return out, l
	}
}

// legacy records one marker line, redacted again as text when again.
func (w *writer) legacy(line string, cause []int64, at time.Time, again bool) {
	// The capture keeps nothing of the line once LegacyWith returns.
	w.scratch = append(w.scratch[:0], line...)
	b := w.scratch
	var l []envelope.Redaction
	if again && w.red != nil {
		var f []redact.Finding
		b, f = w.red.Text(b)
		l = capture.Ledger(f)
		if len(f) > 0 {
			w.late++
		}
	}
	w.c.LegacyWith(b, capture.Stamp{At: at, Cause: cause, Redacted: true, Ledger: l})
}

// assembled reports an event that may hold text no redacted line held:
// what a normalizer built by parsing a tool call's input put together from
// its streamed pieces (Claude input_json_delta). The pieces were redacted
// as the JSON text they are, so a string that only decoding the assembled
// input spells (escapes, a secret cut between two pieces of one escape) can
// reach the tool's input and summary, and the subagent identity read from
// a Task call's input. Every other field of every event comes from one
// redacted line, or from streamed text the line redactor redacted block by
// block, so redacting it again would find nothing and cost a second scan;
// only these events, and the legacy markers derived from them, are
// redacted again (capture.end counts what that pass still found).
func assembled(e event.Event) bool {
	return (e.Tool != nil && (len(e.Tool.Input) > 0 || e.Tool.Summary != "")) || e.Agent != nil
}

// finish records the end of the normalizer and the legacy stream, and
// capture.end.
func (w *writer) finish(f *finishInfo) {
	p := w.p
	if p.oldOutput != nil {
		defer func() { <-p.oldOutput }()
	}
	if w.c == nil {
		if p.outFile != nil {
			p.outFile.Close()
		}
		return
	}
	endAt := p.arrival()
	w.curAt = endAt
	if w.norm != nil {
		for _, e := range w.norm.End() {
			w.emit(e)
		}
	}
	if w.deriver != nil {
		for _, m := range w.deriver.End() {
			w.legacy(m.Line, m.Cause, endAt, true)
		}
	}
	if w.rend != nil && !w.renderErr {
		w.rend.Close()
	}
	w.p.con.flush()
	if w.late > 0 {
		w.note("%d normalized or legacy records held text the line redaction had missed and were redacted again; evcap normalize of this capture differs from them", w.late)
	}
	if p.opts.Observer != nil {
		w.notes = append(w.notes, p.opts.Observer.Notes()...)
	}
	notes := append(p.exit.notes, w.notes...)
	end := endPayload{
		End: capture.End{
			ExitCode:   p.exit.code,
			Signal:     p.exit.signal,
			CleanEnd:   p.exit.ownEnd && !f.tornStdout && f.dropped == 0,
			DurationMs: endAt.Sub(p.started).Milliseconds(),
			Notes:      notes,
		},
		CLIVersion:   w.cliVersion,
		StdoutLines:  f.stdoutLines,
		StdoutBytes:  f.stdoutBytes,
		StderrLines:  f.errLines,
		StdinLines:   f.inLines,
		DroppedBytes: f.dropped,
		Events:       p.st.events.Load(),
		ToolCalls:    p.st.tools.Load(),
		Tokens:       p.st.tokens.Load(),
	}
	end.Counts = w.c.Counts()
	end.Counts[string(envelope.StageMeta)]++ // this record
	if err := w.c.CloseWith(end, w.redactedJSON(endAt)); err != nil && w.err == nil {
		w.err = err
	}
	w.notes = notes
}
