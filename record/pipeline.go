package record

import (
	"bytes"
	"fmt"
	"os"
	"time"

	"github.com/evcap/evcap/capture"
	"github.com/evcap/evcap/event"
	"github.com/evcap/evcap/providers"
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
	gap    *capture.Gap
}

// pipeline turns queued output into records. Its own goroutine (run) cuts
// lines, detects the provider and redacts; the writer goroutine (see
// writer.go) writes native lines, normalized events, legacy markers, the
// live rendering. Nothing either does can block the readers of the pipes
// (the queue between them decides).
type pipeline struct {
	opts    *Options
	q       *queue
	waits   *waits
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

	w   *writer
	cur *batch // the steps not handed to the writer yet
	// outFile is the -o file, opened once by prepare: opening it a second
	// time could block (a FIFO) or race with another writer.
	outFile *os.File
	// oldOutput, when not nil, is closed once the capture the -o file
	// replaced has been let go (openOutput); finish waits for it.
	oldOutput  <-chan struct{}
	ord        order // lines waiting for their turn (see order)
	opened     bool
	provider   string
	probe      event.Normalizer
	probed     int
	cliVersion string
	sawInit    bool

	pre       []preItem
	preLines  int
	firstData time.Time

	out, errs, in splitter
	// at is the arrival time of the chunk being split; lastAt the latest
	// per stream, for a torn last line.
	at                                 time.Time
	lastAt                             [numStreams]time.Time
	inLines                            int64
	stdoutLines, stdoutBytes, errLines int64
	dropped                            int64
	tornStdout                         bool
	// handed is the line being split when the splitter gives its buffer
	// up (see splitter.handed).
	handed []byte
	// pfLines are the stdout lines of the chunks taken, handed to the line
	// redactor's Prefetch.
	pfLines [][]byte
	pf      prefetcher
	// pfChunks is how many chunks at the front of items hold lines handed
	// to Prefetch: their bytes go back to the queue only after
	// endPrefetch.
	pfChunks int
	// items are the chunks being split, and item the index of the one at
	// hand (see lineAhead); ahead is lineAhead as a func value, made once.
	items []chunk
	item  int
	ahead func() (int, bool)
}

func newPipeline(opts *Options, argv []string, cliName string) *pipeline {
	p := &pipeline{opts: opts, st: &stats{}, started: opts.Now(),
		argv: argv, cliName: cliName, provider: opts.Provider, waits: newWaits()}
	p.q = newQueue(opts.QueueBytes, opts.StallTimeout, p.waits, p.arrival)
	p.con = newConsole(opts.Console, opts.Status, func() string { return p.st.line(opts.Now().Sub(p.started)) })
	p.w = newWriter(p)
	p.ahead = p.lineAhead
	p.out.longLine = opts.LongLine
	return p
}

// arrival reads the capture's one clock: the wall time of the capture's
// start plus the monotonic time elapsed since, so that timestamps keep the
// spacing the bytes arrived with even if the wall clock is stepped.
func (p *pipeline) arrival() time.Time {
	return p.started.Add(p.opts.Now().Sub(p.started))
}

// note adds a capture.end note, in its place among the writer's.
func (p *pipeline) note(format string, args ...any) {
	p.add(step{kind: stepNote, note: fmt.Sprintf(format, args...)})
}

// add queues a step for the writer.
func (p *pipeline) add(s step) {
	b := p.batch()
	b.steps = append(b.steps, s)
	if p.cur.size() >= batchBytes || len(p.cur.steps) >= 4096 {
		p.handOff(false)
	}
}

// batch is the batch being filled: one the writer gave back, or a new one.
func (p *pipeline) batch() *batch {
	if p.cur == nil {
		select {
		case p.cur = <-p.w.free:
		default:
			p.cur = &batch{steps: make([]step, 0, 256)}
		}
	}
	return p.cur
}

// handOff gives the steps so far to the writer, waiting while it has
// writerBatches batches not done yet. When idle (no more input waiting)
// and the writer has caught up, the steps are done here instead.
func (p *pipeline) handOff(idle bool) {
	if p.cur == nil || len(p.cur.steps) == 0 {
		return
	}
	if idle && p.w.inline(p.cur) {
		return
	}
	p.w.send(p.cur)
	p.cur = nil
}

// prepare checks the output location before anything runs, so a bad -o
// fails before the agent is started.
func (p *pipeline) prepare() error {
	if p.opts.Output != "" {
		f, dropped, err := openOutput(p.opts.Output)
		if err != nil {
			return fmt.Errorf("capture file: %w", err)
		}
		p.outFile, p.oldOutput = f, dropped
		return nil
	}
	if err := os.MkdirAll(p.opts.Dir, 0o755); err != nil {
		return fmt.Errorf("capture directory: %w", err)
	}
	return nil
}

// run consumes the queue until it is closed and drained, then has the
// writer write capture.end. It returns the first error writing the
// capture.
func (p *pipeline) run() error {
	go p.w.run()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	p.con.redraw()
	for {
		items, closed := p.q.take()
		p.items = items
		for i := 0; i < len(items); {
			// The chunks go in windows of about prefetchMaxBytes, each
			// one's lines handed to the prefetch before it is split, so
			// that the helpers redact ahead all along a large take, not
			// only in its first prefetchMaxBytes.
			j, bound := p.window(items, i)
			p.prefetch(items[i:j], bound)
			for k := i; k < j; k++ {
				p.item = k
				p.chunk(items[k])
				p.q.done(len(items[k].data))
				if k-i >= p.pfChunks {
					// Nothing refers to the chunk's bytes any more: the
					// lines were copied or redacted into buffers of their
					// own.
					p.q.release(&items[k])
				}
			}
			p.endPrefetch()
			for k := i; k < i+p.pfChunks; k++ {
				p.q.release(&items[k])
			}
			p.pfChunks = 0
			i = j
		}
		p.items = nil
		n := len(items)
		p.q.recycle(items)
		if closed && n == 0 {
			break
		}
		if !p.opened && !p.firstData.IsZero() && p.opts.Now().Sub(p.firstData) >= p.opts.DetectWait {
			p.open()
		}
		idle := !p.q.waiting()
		if idle {
			p.ord.settle(p.write)
		}
		p.handOff(idle)
		if n > 0 {
			continue
		}
		select {
		case <-p.q.notify:
		case <-p.q.timer.C:
		case <-tick.C:
			p.con.redraw()
		}
	}
	p.finish()
	p.handOff(true)
	close(p.w.steps)
	<-p.w.done
	return p.w.err
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
	sp.feed(c.data, p.ahead, func(line []byte) {
		if sp.handed {
			p.handed = line
		}
		p.line(c.stream, line)
		p.handed = nil
	}, gapEnd)
}

// window returns the end of the window of chunks that starts at items[i],
// and how many bytes of lines may be handed to the prefetch in it.
//
// A run of stdout chunks without a newline (the middle of a long line) is
// a window of its own: it holds no whole line to prefetch, and its chunks
// go back to the queue as soon as they are split. Otherwise the window
// holds at most prefetchMaxBytes, and at least one chunk; but when its
// first chunk ends a long line (longLineBytes or more), the window and
// the bytes prefetched grow to half the line's length (at most
// maxLongPrefetch): the pipeline redacts that line itself, one line on
// one core, while the helpers redact the lines after it instead of
// waiting for the next window.
func (p *pipeline) window(items []chunk, i int) (j, bound int) {
	j = i
	for j < len(items) && items[j].stream == streamStdout && len(items[j].data) > 0 && bytes.IndexByte(items[j].data, '\n') < 0 {
		j++
	}
	if j > i {
		return j, prefetchMaxBytes
	}
	bound = prefetchMaxBytes
	if c := items[i]; c.stream == streamStdout && len(c.data) > 0 && !p.out.skipping {
		if n := len(p.out.pending) + bytes.IndexByte(c.data, '\n'); n >= longLineBytes {
			bound = max(bound, min(n/2, maxLongPrefetch))
		}
	}
	size := len(items[i].data)
	j = i + 1
	for j < len(items) && size+len(items[j].data) <= bound {
		size += len(items[j].data)
		j++
	}
	return j, bound
}

// lineAhead tells the splitter how many bytes of the line it is
// assembling are in the chunks taken after the one at hand: those of its
// stream up to the first newline (ends), or all of them when none has one.
// A gap or the end of the stream ends the line's known part.
func (p *pipeline) lineAhead() (n int, ends bool) {
	if p.item >= len(p.items) {
		return 0, false
	}
	s := p.items[p.item].stream
	for _, c := range p.items[p.item+1:] {
		if c.stream != s {
			continue
		}
		if c.data == nil {
			return n, false
		}
		if i := bytes.IndexByte(c.data, '\n'); i >= 0 {
			return n + i, true
		}
		n += len(c.data)
	}
	return n, false
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
	g := capture.Gap{Stream: s.String(), DroppedBytes: bytes, DroppedLines: lines,
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
	p.add(step{kind: stepGap, gap: g, a: arrived{at: p.at}})
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
		d, _, ok := providers.DetectStream(stdout)
		if !ok {
			return
		}
		p.provider = d.Name
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

// open has the writer create the capture file and write capture.start,
// then hands it the held lines.
func (p *pipeline) open() {
	if p.opened {
		return
	}
	p.opened = true
	p.detect()
	if p.opts.Redactor != nil {
		p.ord.lr = newLineRedactor(p.opts.Redactor, p.opts, p.provider)
	}
	p.cliName = cliName(p.cliName, p.provider)
	if p.cliVersion == "" {
		p.cliVersion = installedVersion(p.exe, p.provider)
	}
	p.add(step{kind: stepOpen, open: &openInfo{provider: p.provider, cliName: p.cliName,
		cliVersion: p.cliVersion, preLines: p.preLines}})
	pre := p.pre
	p.pre = nil
	for _, it := range pre {
		if it.gap != nil {
			p.add(step{kind: stepGap, gap: *it.gap, a: arrived{at: it.at}})
			continue
		}
		p.record(it.stream, it.line, it.at)
	}
}

// record takes the next line of a stream, stamped with when it arrived.
// Lines are written in arrival order: a stdout line the line redactor
// holds keeps its place, and the lines of every stream behind it wait.
func (p *pipeline) record(s stream, line []byte, at time.Time) {
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

// write hands the writer a line whose turn has come. The line is copied:
// the redactor's and the splitter's slices are valid only until their
// next call.
func (p *pipeline) write(a *arrived) {
	s := step{kind: stepLine, a: *a}
	if h := p.handed; len(h) > 0 && len(a.line) == len(h) && &a.line[0] == &h[0] {
		// The splitter's buffer of a huge line, given up by it and
		// released as it was by the redactor: no copy of many MiB.
		p.handed = nil
		p.batch().held += len(h)
	} else {
		s.a.line = p.batch().hold(a.line)
	}
	p.add(s)
}

// quietLines is how many stdout lines without a single normalized event
// make record say so.
const quietLines = 20

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

// cliName is the CLI to name in capture.start: the executable run when it
// is the provider's own, else the provider's CLI (a wrapper such as sh or
// a stand-in script is not the CLI).
func cliName(argv0, provider string) string {
	d, ok := providers.Lookup(provider)
	if !ok || d.CLI == "" || argv0 == d.CLI {
		return argv0
	}
	return d.CLI
}

// finish records what is left in the splitters, releases the held lines
// and has the writer end the capture.
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
	p.release()
	if p.ord.lr != nil && p.ord.lr.EarlyFlushes() > 0 {
		p.note("%d streamed blocks were released in parts because more than the held-lines bound waited; at %d of those cuts, text that could have started a secret, and what continued it, was redacted", p.ord.lr.EarlyFlushes(), p.ord.lr.PartialRedactions())
	}
	p.add(step{kind: stepFinish, end: &finishInfo{stdoutLines: p.stdoutLines, stdoutBytes: p.stdoutBytes,
		errLines: p.errLines, inLines: p.inLines, dropped: p.dropped, tornStdout: p.tornStdout}})
}

// result is how the recording ended; called after run returned.
func (p *pipeline) result() Result {
	w := p.w
	r := Result{ExitCode: p.exit.exit, Signal: p.exit.signal, Provider: p.provider, Notes: w.notes}
	if w.c != nil {
		r.Path = w.c.Path()
		r.Records = w.c.Sequence()
	}
	return r
}
