package record

import (
	"fmt"
	"os"
	"runtime"
	"time"

	"github.com/evcap/evcap/capture"
	"github.com/evcap/evcap/envelope"
	"github.com/evcap/evcap/event"
	"github.com/evcap/evcap/normalize/detect"
	"github.com/evcap/evcap/render/legacy"
	"github.com/tidwall/gjson"
)

// exitInfo is how the source ended, set by the source before it closes the
// queue (the queue's lock orders it before the pipeline reads it).
type exitInfo struct {
	code    *int
	signal  string
	exit    int // evcap's exit code
	ownEnd  bool
	notes   []string
	noChild bool
}

// endPayload is the capture.end record: capture.End plus what a recorder
// knows beyond a library tap.
type endPayload struct {
	capture.End
	CLIVersion   string `json:"cliVersion,omitempty"`
	StdoutLines  int64  `json:"stdoutLines"`
	StdoutBytes  int64  `json:"stdoutBytes"`
	StderrLines  int64  `json:"stderrLines"`
	StdinLines   int64  `json:"stdinLines,omitempty"`
	DroppedBytes int64  `json:"droppedBytes"`
	Events       int64  `json:"events"`
	ToolCalls    int64  `json:"toolCalls"`
	Tokens       int64  `json:"tokens"`
}

type preItem struct {
	stream stream
	line   []byte
	at     time.Time
	gap    *gapPayload
}

// pipeline is the one goroutine that turns queued output into records:
// native lines, normalized events, legacy markers, the live rendering and
// the status line. Nothing it does can block the readers of the pipes.
type pipeline struct {
	opts    *Options
	q       *queue
	con     *console
	st      *stats
	started time.Time
	argv    []string
	cliName string
	// exe is the command run (argv[0]), where an installed CLI's version
	// can be read when its stream names none.
	exe    string
	onIdle func()
	exit   exitInfo

	sink *sink
	// outFile is the -o file, opened once by prepare: opening it a second
	// time could block (a FIFO) or race with another writer.
	outFile    *os.File
	ord        order // lines waiting for their turn (see order)
	opened     bool
	provider   string
	probe      event.Normalizer
	probed     int
	cliVersion string
	sawInit    bool
	norm       event.Normalizer
	deriver    *legacy.Deriver
	rend       Renderer
	renderErr  bool
	busy, idle bool

	pre       []preItem
	preLines  int
	firstData time.Time

	out, errs, in splitter
	// at is the arrival time of the chunk being split; lastAt the latest
	// per stream, for a torn last line.
	at                                 time.Time
	lastAt                             [numStreams]time.Time
	inLines                            int64
	curAt                              time.Time // arrival of the native line being normalized
	nativeSeen                         int64
	warnedJSON, warnedQuiet            bool
	stdoutLines, stdoutBytes, errLines int64
	dropped                            int64
	tornStdout                         bool
	notes                              []string
	err                                error
}

func newPipeline(opts *Options, argv []string, cliName string) *pipeline {
	p := &pipeline{opts: opts, st: &stats{}, started: opts.Now(),
		argv: argv, cliName: cliName, provider: opts.Provider}
	p.q = newQueue(opts.QueueBytes, opts.StallTimeout, p.arrival)
	p.con = newConsole(opts.Console, opts.Status, func() string { return p.st.line(opts.Now().Sub(p.started)) })
	return p
}

// arrival reads the capture's one clock: the wall time of the capture's
// start plus the monotonic time elapsed since, so that timestamps keep the
// spacing the bytes arrived with even if the wall clock is stepped.
func (p *pipeline) arrival() time.Time {
	return p.started.Add(p.opts.Now().Sub(p.started))
}

func (p *pipeline) note(format string, args ...any) {
	p.notes = append(p.notes, fmt.Sprintf(format, args...))
}

// prepare checks the output location before anything runs, so a bad -o
// fails before the agent is started.
func (p *pipeline) prepare() error {
	if p.opts.Output != "" {
		f, err := os.OpenFile(p.opts.Output, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
		if err != nil {
			return fmt.Errorf("capture file: %w", err)
		}
		p.outFile = f
		return nil
	}
	if err := os.MkdirAll(p.opts.Dir, 0o755); err != nil {
		return fmt.Errorf("capture directory: %w", err)
	}
	return nil
}

// run consumes the queue until it is closed and drained, then writes
// capture.end. It returns the first error writing the capture.
func (p *pipeline) run() error {
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	p.con.redraw()
	for {
		items, closed := p.q.take()
		for _, c := range items {
			p.chunk(c)
			p.q.done(len(c.data))
		}
		if closed && len(items) == 0 {
			break
		}
		if !p.opened && !p.firstData.IsZero() && p.opts.Now().Sub(p.firstData) >= p.opts.DetectWait {
			p.open()
		}
		if len(items) > 0 {
			continue
		}
		select {
		case <-p.q.notify:
		case <-tick.C:
			p.con.redraw()
		}
	}
	p.finish()
	return p.err
}

func (p *pipeline) chunk(c chunk) {
	sp := &p.out
	switch c.stream {
	case streamStderr:
		sp = &p.errs
	case streamStdin:
		sp = &p.in
	}
	p.at = c.at
	p.lastAt[c.stream] = c.at
	gapEnd := func(b, l int64) { p.gapped(c.stream, b, l) }
	if c.eof {
		p.inputEnded()
		return
	}
	if c.stream == streamRequest {
		p.line(streamRequest, c.data)
		return
	}
	if c.data == nil {
		sp.gap(c.gapBytes, c.gapNewlines, c.gapEndsLine, gapEnd)
		return
	}
	if c.stream == streamStdout {
		p.stdoutBytes += int64(len(c.data))
		if p.firstData.IsZero() {
			p.firstData = p.opts.Now()
		}
	}
	sp.feed(c.data, func(line []byte) { p.line(c.stream, line) }, gapEnd)
}

// inputEnded records that the integration closed the agent's stdin, after
// a last line it left without newline.
func (p *pipeline) inputEnded() {
	if torn, gb, gl, inGap := p.in.end(); inGap {
		p.gapped(streamStdin, gb, gl)
	} else if torn != nil {
		p.line(streamStdin, append([]byte(nil), torn...))
	}
	p.in = splitter{}
	p.line(streamStdin, nil)
}

func (p *pipeline) gapped(s stream, bytes, lines int64) {
	p.dropped += bytes
	g := gapPayload{Stream: s.String(), DroppedBytes: bytes, DroppedLines: lines,
		Reason: "the capture writer fell behind the agent's output; these bytes were passed through but not recorded"}
	p.note("%s: %d bytes (%d lines) not recorded because the capture writer fell behind", s, bytes, lines)
	if !p.opened {
		p.pre = append(p.pre, preItem{stream: s, gap: &g, at: p.at})
		return
	}
	if s == streamStdout {
		// The blocks are cut here anyway: what came before the gap goes
		// first.
		p.release()
	}
	p.sink.gap(g, p.at)
}

func (p *pipeline) line(s stream, line []byte) {
	if p.opened {
		p.record(s, line, p.at)
		return
	}
	var cp []byte
	if line != nil {
		cp = append([]byte{}, line...)
	}
	p.pre = append(p.pre, preItem{stream: s, line: cp, at: p.at})
	if s != streamStdout {
		return
	}
	p.preLines++
	p.detect()
	if p.sawInit || p.preLines >= p.opts.DetectLines {
		p.open()
	}
}

// detect names the provider from the held lines and feeds them to a
// probe normalizer that looks for the CLI's version in its init event.
func (p *pipeline) detect() {
	if p.provider == "" {
		var stdout [][]byte
		for _, it := range p.pre {
			if it.stream == streamStdout && it.line != nil {
				stdout = append(stdout, it.line)
			}
		}
		m, ok := detect.Detect(stdout)
		if !ok {
			return
		}
		p.provider = m.Provider
	}
	if p.probe == nil {
		if p.opts.NewNormalizer == nil {
			return
		}
		n, err := p.opts.NewNormalizer(p.provider)
		if err != nil {
			return
		}
		p.probe = n
	}
	seen := 0
	for _, it := range p.pre {
		if it.stream != streamStdout || it.line == nil {
			continue
		}
		seen++
		if seen <= p.probed {
			continue
		}
		p.probed = seen
		for _, e := range p.probe.Line(int64(seen), it.line) {
			if e.Kind == event.KindInit && !p.sawInit {
				p.sawInit = true
				p.cliVersion = e.Version
			}
		}
	}
}

// open creates the capture file, writes capture.start and the held lines.
func (p *pipeline) open() {
	if p.opened {
		return
	}
	p.opened = true
	p.detect()
	now := p.opts.Now()
	sk, err := openSink(p.outFile, p.opts.Dir, p.provider, now, p.opts.Redactor, p.opts.Now)
	if err != nil {
		p.err = err
		fmt.Fprintf(p.con, "evcap: cannot record: %v\n", err)
		return
	}
	p.sink = sk
	if p.opts.Observer != nil {
		sk.observe = p.opts.Observer.Observe
		if sk.clock == nil {
			sk.clock = time.Now
		}
	}
	if p.opts.Redactor != nil {
		p.ord.lr = newLineRedactor(p.opts.Redactor, p.opts)
	}
	if p.provider == "" {
		p.note("provider not detected from the first lines: nothing was normalized")
		p.warn("the agent's provider was not detected from its first %d stdout lines: nothing is normalized or rendered (give --provider)", p.preLines)
	} else if p.opts.NewNormalizer != nil {
		n, err := p.opts.NewNormalizer(p.provider)
		if err != nil {
			p.note("no normalizer: %v", err)
		} else {
			p.norm = n
			p.deriver = legacy.New()
		}
	}
	if p.norm != nil && p.opts.NewRenderer != nil {
		p.rend = p.opts.NewRenderer(p.con)
	}
	p.cliName = cliName(p.cliName, p.provider)
	if p.cliVersion == "" {
		p.cliVersion = installedVersion(p.exe, p.provider)
	}
	p.sink.meta(envelope.EventCaptureStart, p.started, capture.Start{
		EvcapVersion: p.opts.EvcapVersion, Provider: p.provider, Argv: p.argv,
		CLIName: p.cliName, CLIVersion: p.cliVersion, OS: runtime.GOOS, Arch: runtime.GOARCH,
	})
	pre := p.pre
	p.pre = nil
	for _, it := range pre {
		if it.gap != nil {
			p.sink.gap(*it.gap, it.at)
			continue
		}
		p.record(it.stream, it.line, it.at)
	}
}

// record takes the next line of a stream, stamped with when it arrived.
// Lines are written in arrival order: a stdout line the line redactor
// holds keeps its place, and the lines of every stream behind it wait.
func (p *pipeline) record(s stream, line []byte, at time.Time) {
	if p.sink == nil {
		return
	}
	switch s {
	case streamStderr:
		p.errLines++
	case streamStdin:
		if line != nil {
			p.inLines++
		}
	case streamRequest:
		// evcap's own HTTP request (native_out), not a line the agent printed
	default:
		p.stdoutLines++
	}
	p.ord.push(s, line, at, p.write)
}

// release records every line the line redactor still holds, and the lines
// waiting behind them.
func (p *pipeline) release() {
	p.ord.flush(p.write)
}

// write records a line whose turn has come.
func (p *pipeline) write(a *arrived) {
	switch a.stream {
	case streamStderr:
		if a.viaRedactor {
			p.sink.stderrRedacted(a.line, a.ledger, a.at)
		} else {
			p.sink.stderr(a.line, a.at)
		}
	case streamRequest:
		p.sink.request(a.line, a.at)
	case streamStdin:
		if a.line == nil {
			p.sink.inputClosed(a.at)
		} else {
			seq, recorded := p.sink.input(a.line, a.at)
			p.answer(seq, recorded, a.at)
		}
	default:
		p.native(a.line, a.ledger, a.at)
	}
}

// answer normalizes an input line that answers the agent: a stream-json
// control_response (the integration's reply to a permission request)
// becomes the permission's completed event. Other input (user messages,
// the integration's own control requests) is the integration's, not the
// agent's output, and is not normalized.
func (p *pipeline) answer(seq int64, line []byte, at time.Time) {
	if p.norm == nil || !looksJSON(line) || !envelope.Normalized(envelope.StageNativeOut, capture.NativeEventType(line)) {
		return
	}
	p.curAt = at
	for _, e := range p.norm.Line(seq, line) {
		p.emit(e)
	}
}

// native records a redacted stdout line and normalizes it. The normalizer
// reads the line as recorded, so normalizing the capture's native_in again
// gives back its normalized_out. The events and markers derived from the
// line carry its arrival time.
func (p *pipeline) native(line []byte, l []envelope.Redaction, at time.Time) {
	seq := p.sink.native(line, l, at)
	if !p.warnedJSON && !looksJSON(line) {
		p.warnedJSON = true
		p.warn("stdout line %d is not JSON: is the agent's JSON output switched on (claude --output-format stream-json --verbose, codex exec --json, gemini --output-format stream-json, opencode run --format json)?", p.nativeSeen+1)
	}
	p.nativeSeen++
	if p.norm == nil {
		return
	}
	p.curAt = at
	before := p.st.events.Load()
	for _, e := range p.norm.Line(seq, line) {
		p.emit(e)
	}
	if p.st.events.Load() == before && before == 0 && p.nativeSeen == quietLines && !p.warnedQuiet {
		p.warnedQuiet = true
		p.warn("%d stdout lines and no normalized event yet: the %s normalizer does not understand this output", quietLines, p.provider)
	}
}

// quietLines is how many stdout lines without a single normalized event
// make record say so.
const quietLines = 20

// warn prints one line on the console when it happens (capture.end has the
// notes too); an evcap shim, which must leave stderr as it was, keeps
// quiet.
func (p *pipeline) warn(format string, args ...any) {
	if p.opts.Transparent {
		return
	}
	p.con.clear()
	fmt.Fprintf(p.con, "evcap: warning: "+format+"\n", args...)
}

func looksJSON(line []byte) bool {
	for _, c := range line {
		switch c {
		case ' ', '\t', '\r':
			continue
		case '{', '[':
			return gjson.ValidBytes(line)
		}
		return false
	}
	return false
}

// cliNames are the executables of the providers' CLIs.
var cliNames = map[string]string{"claude": "claude", "codex": "codex", "gemini": "gemini", "opencode": "opencode"}

// cliName is the CLI to name in capture.start: the executable run when it
// is the provider's own, else the provider's CLI (a wrapper such as sh or
// a stand-in script is not the CLI).
func cliName(argv0, provider string) string {
	want, ok := cliNames[provider]
	if !ok || argv0 == want {
		return argv0
	}
	return want
}

func (p *pipeline) emit(e event.Event) {
	if e.SessionID != "" && p.sink.session == "" {
		p.sink.session = e.SessionID
	}
	if e.Kind == event.KindInit && e.Version != "" && p.cliVersion == "" {
		p.cliVersion = e.Version
	}
	p.sink.normalized(e, p.curAt)
	p.st.add(e)
	if p.rend != nil && !p.renderErr {
		if err := p.rend.Render(e); err != nil {
			p.renderErr = true
			p.note("live rendering stopped: %v", err)
		}
	}
	if p.deriver != nil {
		for _, m := range p.deriver.Event(e) {
			p.sink.legacy(m.Line, m.Cause, p.curAt)
		}
	}
	if e.Kind == event.KindStatus {
		switch e.Status {
		case "busy":
			p.busy = true
		case "idle":
			if p.busy && !p.idle {
				p.idle = true
				if p.opts.UntilIdle && p.onIdle != nil {
					p.onIdle()
				}
			}
		}
	}
}

// finish records what is left in the splitters, the end of the
// normalizer and the legacy stream, and capture.end.
func (p *pipeline) finish() {
	if torn, gb, gl, inGap := p.out.end(); inGap {
		p.gapped(streamStdout, gb, gl)
	} else if torn != nil {
		p.tornStdout = true
		p.note("the last stdout line has no newline (%d bytes); it is recorded as it was", len(torn))
		p.at = p.lastAt[streamStdout]
		p.line(streamStdout, append([]byte(nil), torn...))
	}
	if torn, gb, gl, inGap := p.errs.end(); inGap {
		p.gapped(streamStderr, gb, gl)
	} else if torn != nil {
		p.at = p.lastAt[streamStderr]
		p.line(streamStderr, append([]byte(nil), torn...))
	}
	if torn, gb, gl, inGap := p.in.end(); inGap {
		p.gapped(streamStdin, gb, gl)
	} else if torn != nil {
		p.at = p.lastAt[streamStdin]
		p.line(streamStdin, append([]byte(nil), torn...))
	}
	p.open()
	p.con.clear()
	if p.sink == nil {
		if p.outFile != nil {
			p.outFile.Close()
		}
		return
	}
	p.release()
	if p.ord.lr != nil && p.ord.lr.EarlyFlushes() > 0 {
		p.note("%d streamed blocks were released in parts because more than the held-lines bound waited; at %d of those cuts, text that could have started a secret, and what continued it, was redacted", p.ord.lr.EarlyFlushes(), p.ord.lr.PartialRedactions())
	}
	endAt := p.arrival()
	p.curAt = endAt
	if p.norm != nil {
		for _, e := range p.norm.End() {
			p.emit(e)
		}
	}
	if p.deriver != nil {
		for _, m := range p.deriver.End() {
			p.sink.legacy(m.Line, m.Cause, endAt)
		}
	}
	if p.rend != nil && !p.renderErr {
		p.rend.Close()
	}
	if p.sink.late > 0 {
		p.note("%d normalized or legacy records held text the line redaction had missed and were redacted again; evcap normalize of this capture differs from them", p.sink.late)
	}
	if p.opts.Observer != nil {
		p.notes = append(p.notes, p.opts.Observer.Notes()...)
	}
	notes := append(p.exit.notes, p.notes...)
	end := endPayload{
		End: capture.End{
			ExitCode:   p.exit.code,
			Signal:     p.exit.signal,
			CleanEnd:   p.exit.ownEnd && !p.tornStdout && p.dropped == 0,
			DurationMs: endAt.Sub(p.started).Milliseconds(),
			Notes:      notes,
		},
		CLIVersion:   p.cliVersion,
		StdoutLines:  p.stdoutLines,
		StdoutBytes:  p.stdoutBytes,
		StderrLines:  p.errLines,
		StdinLines:   p.inLines,
		DroppedBytes: p.dropped,
		Events:       p.st.events.Load(),
		ToolCalls:    p.st.tools.Load(),
		Tokens:       p.st.tokens.Load(),
	}
	end.Counts = p.sink.counts()
	end.Counts[string(envelope.StageMeta)]++ // this record
	p.sink.meta(envelope.EventCaptureEnd, endAt, end)
	if err := p.sink.close(); err != nil && p.err == nil {
		p.err = err
	}
	p.notes = notes
}

func (p *pipeline) result() Result {
	r := Result{ExitCode: p.exit.exit, Signal: p.exit.signal, Provider: p.provider, Notes: p.notes}
	if p.sink != nil {
		r.Path = p.sink.path
		r.Records = p.sink.w.Sequence()
	}
	return r
}
