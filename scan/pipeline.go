package scan

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"runtime"
	"sync"

	"github.com/evcap/evcap/envelope"
	"github.com/evcap/evcap/internal/jsonpick"
	"github.com/evcap/evcap/internal/lines"
	"github.com/evcap/evcap/providers"
	"github.com/evcap/evcap/redact"
	"github.com/tidwall/gjson"
)

// A file is scanned by a small ordered pipeline: one goroutine reads
// lines (and decides the few things that need the lines before: the
// file's kind from its first line, the project the records declare),
// GOMAXPROCS workers check batches of lines on their own (lineScan), and
// the calling goroutine applies the batches' results in file order
// (fileScan.apply). What is reported, and in what order, is what checking
// one line after the other reports; the errors are the same and come at
// the same line.

// Batches are cut at batchLines lines or batchBytes bytes, and the lines
// read but not yet applied hold at most maxInflight bytes besides one long
// line (see flow): memory stays bounded by a few long lines.
const (
	batchLines  = 64
	batchBytes  = 256 << 10
	maxInflight = 8 << 20
)

// lineJob is one line to check, with the matcher in force for it.
type lineJob struct {
	n    int64
	line []byte
	m    *matcher
}

// batch is a run of consecutive lines. err, when set, ends the scan after
// the batch's lines (refused: the file is not scannable). Batches are
// reused once applied, with their lines' bytes (buf, which nothing
// holds on to after apply: what is kept of a line is copied) and their
// results' slices.
type batch struct {
	jobs    []lineJob
	outs    []lineOut
	buf     []byte
	bytes   int
	err     error
	refused bool
	done    chan struct{}
	// lines is the most lines the batch takes.
	lines int
	// long: the batch is one long line, not copied (the line reader
	// gives a long line a buffer of its own).
	long bool
}

// flow bounds what is in flight between the reader and the in-order
// stage, and lets the in-order stage stop the reader. Batches of short
// lines are in flight at most queued at a time (maxInflight bytes in all),
// except while a long line is: then the reader reads on behind it, up to
// behind batches and maxInflight bytes, so the other workers check the
// lines after it while one worker checks it (its results wait to be
// applied in file order). One long line at a time is in flight: the
// reader reads at most one more before it waits.
type flow struct {
	mu       sync.Mutex
	cond     *sync.Cond
	inflight int
	batches  int
	long     int
	queued   int
	stopped  bool
}

// behind bounds the batches in flight behind a long line.
const behind = 512

func newFlow(queued int) *flow {
	f := &flow{queued: queued}
	f.cond = sync.NewCond(&f.mu)
	return f
}

// full reports whether a batch of n bytes (long: one long line's) must
// wait.
func (f *flow) full(n int, long bool) bool {
	if long {
		return f.long > 0
	}
	if f.batches == 0 {
		return false
	}
	if f.inflight+n > maxInflight {
		return true
	}
	return f.batches >= behind || f.long == 0 && f.batches >= f.queued
}

// acquire waits until a batch of n bytes (long: a long line's) may be in
// flight; false once stopped.
func (f *flow) acquire(n int, long bool) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	for !f.stopped && f.full(n, long) {
		f.cond.Wait()
	}
	if f.stopped {
		return false
	}
	if long {
		f.long++
	} else {
		f.inflight += n
		f.batches++
	}
	return true
}

func (f *flow) release(n int, long bool) {
	f.mu.Lock()
	if long {
		f.long--
	} else {
		f.inflight -= n
		f.batches--
	}
	f.mu.Unlock()
	f.cond.Broadcast()
}

// behindLong reports whether a long line is in flight.
func (f *flow) behindLong() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.long > 0
}

func (f *flow) stop() {
	f.mu.Lock()
	f.stopped = true
	f.mu.Unlock()
	f.cond.Broadcast()
}

func (f *flow) isStopped() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.stopped
}

// read scans one file. Findings go to emit as they are found, or, when
// emit is nil, into the returned fileScan's out. The fileScan is nil when
// the file was refused.
func (s *Scanner) read(r io.Reader, name string, kind Kind, emit func(Finding)) (*fileScan, error) {
	m, err := s.matcher(s.opts.Project)
	if err != nil {
		return nil, err
	}
	f := &fileScan{s: s, name: name, kind: kind, seen: map[findKey]bool{}, cur: map[findKey]bool{}, curLine: -1,
		pem: map[string]*pemState{}, emit: emit, seeds: [2]maphash.Seed{maphash.MakeSeed(), maphash.MakeSeed()}}
	f.m = m.local()

	workers := runtime.GOMAXPROCS(0)
	// The reader never waits to send a batch: the flow bounds them.
	queued := 2*workers + 2
	fl := newFlow(queued)
	order := make(chan *batch, behind+2)
	work := make(chan *batch, behind+2)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ls := &lineScan{s: s, kind: kind}
			for b := range work {
				if !fl.isStopped() {
					ls.batch(b)
				}
				close(b.done)
			}
		}()
	}
	free := make(chan *batch, queued+workers)
	rd := &reader{s: s, f: f, lr: newLineReader(r), m: m, fl: fl, order: order, work: work, free: free, project: s.opts.Project}
	rd.lr.longLine = s.opts.LongLine
	wg.Add(1)
	go func() {
		defer wg.Done()
		rd.run()
	}()
	defer func() {
		fl.stop()
		// Let the reader and the workers finish (they stop at the next
		// line), so nothing reads r or the batches once read returns.
		for b := range order {
			<-b.done
		}
		wg.Wait()
	}()

	for b := range order {
		<-b.done
		for i := range b.outs {
			if s.ctx != nil {
				if err := context.Cause(s.ctx); err != nil {
					return f, err
				}
			}
			f.apply(&b.outs[i], b.jobs[i].m)
		}
		fl.release(b.bytes, b.long)
		if b.err != nil {
			if b.refused {
				return nil, b.err
			}
			return f, b.err
		}
		b.recycle(free)
	}
	f.blocks.endAll(f.checkBlock)
	return f, nil
}

// reader reads the lines of one file and hands them out in batches.
type reader struct {
	s       *Scanner
	f       *fileScan
	lr      *lineReader
	m       *matcher
	fl      *flow
	order   chan<- *batch
	work    chan<- *batch
	free    chan *batch
	project string
	cur     *batch
}

// recycle puts b on the free list (or drops it when the list is full or
// its buffer is one long line's).
func (b *batch) recycle(free chan *batch) {
	if b.buf == nil || cap(b.buf) > batchBytes {
		return
	}
	b.jobs, b.buf, b.bytes, b.done = b.jobs[:0], b.buf[:0], 0, nil
	select {
	case free <- b:
	default:
	}
}

// newBatch takes a batch off the free list or makes one.
func (rd *reader) newBatch() *batch {
	var b *batch
	select {
	case b = <-rd.free:
	default:
		b = &batch{buf: make([]byte, 0, batchBytes)}
	}
	b.done = make(chan struct{})
	// Behind a long line a batch is cut by its bytes alone: its buffer
	// is filled, and the bytes in flight are about the memory held.
	b.lines = batchLines
	if rd.fl.behindLong() {
		b.lines = behind * batchLines
	}
	return b
}

func (rd *reader) run() {
	defer close(rd.order)
	defer close(rd.work)
	first := true
	for {
		if rd.s.ctx != nil {
			if err := context.Cause(rd.s.ctx); err != nil {
				rd.end(err, false)
				return
			}
		}
		if rd.fl.isStopped() {
			return
		}
		line, err := rd.lr.Next()
		if err == io.EOF {
			break
		}
		if err != nil && !errors.Is(err, lines.ErrTorn) {
			rd.end(fmt.Errorf("scan %s: line %d: %w", rd.f.name, rd.lr.Line()+1, err), false)
			return
		}
		if first && len(bytes.TrimSpace(line)) > 0 {
			first = false
			if err := rd.f.sniff(line); err != nil {
				rd.end(err, true)
				return
			}
		}
		rd.declare(line)
		if !rd.add(rd.lr.Line(), line) {
			return
		}
	}
	if first && rd.f.kind != KindFile {
		rd.end(fmt.Errorf("scan %s: %w: the file is empty", rd.f.name, ErrNotScannable), true)
		return
	}
	rd.flush()
}

// add queues a copy of line n, sending the batch when it is full; false
// once the in-order stage has stopped. A line is copied into the batch's
// buffer, which never grows (the lines before keep their place): a line
// that does not fit sends the batch first, and one longer than a batch's
// buffer has a batch of its own.
func (rd *reader) add(n int64, line []byte) bool {
	if len(line) > bigLine {
		return rd.lend(n, line)
	}
	if b := rd.cur; b != nil && len(b.buf)+len(line) > cap(b.buf) {
		if !rd.flush() {
			return false
		}
	}
	if rd.cur == nil {
		rd.cur = rd.newBatch()
		if len(line) > cap(rd.cur.buf) {
			rd.cur.buf = make([]byte, 0, len(line))
		}
	}
	b := rd.cur
	start := len(b.buf)
	b.buf = append(b.buf, line...)
	b.jobs = append(b.jobs, lineJob{n: n, line: b.buf[start:len(b.buf):len(b.buf)], m: rd.m})
	b.bytes += len(line)
	if len(b.jobs) >= b.lines || b.bytes >= batchBytes {
		return rd.flush()
	}
	return true
}

// lend sends a long line in a batch of its own without copying it: the
// line reader gave it a buffer of its own, which nothing else reads into,
// so the reader reads on while it is checked (the flow lets one long line
// be in flight, with the lines behind it).
func (rd *reader) lend(n int64, line []byte) bool {
	if !rd.flush() {
		return false
	}
	b := &batch{done: make(chan struct{}), long: true}
	b.jobs = append(b.jobs, lineJob{n: n, line: line, m: rd.m})
	b.bytes = len(line)
	rd.cur = b
	return rd.flush()
}

func (rd *reader) flush() bool {
	b := rd.cur
	if b == nil {
		return true
	}
	rd.cur = nil
	if !rd.fl.acquire(b.bytes, b.long) {
		return false
	}
	rd.order <- b
	rd.work <- b
	return true
}

// end sends what was read and then err.
func (rd *reader) end(err error, refused bool) {
	if rd.cur == nil {
		rd.cur = rd.newBatch()
	}
	rd.cur.err, rd.cur.refused = err, refused
	rd.flush()
}

// mayDeclare reports whether the record raw can declare a project, from
// its stage alone (providers.StageDeclares): two records in three of a
// capture are normalized_out or legacy_out, and their stage comes before
// their payload, so it is read without a search of the payload's bytes.
// It reads stage as declare does (a line that is not JSON, which declare
// turns away, may go either way).
func mayDeclare(raw []byte) bool {
	return providers.StageDeclares(envelope.Stage(gjson.Get(bstr(raw), "stage").String()))
}

// mayHoldProject is mayDeclare(raw) && MayHoldKey(raw, keys), the cheaper
// test first: reading the stage costs about the same on every record,
// the key search grows with the record. On the corpus-shaped capture
// (records of a few hundred bytes) the stage first cost scan 2.6 % of its
// CPU more than it saved; on the bench run's, whose normalized and legacy
// records hold tool outputs, it saved 1.3 %.
func mayHoldProject(raw []byte, keys []string) bool {
	if len(raw) < stageFirst {
		return jsonpick.MayHoldKey(raw, keys) && mayDeclare(raw)
	}
	return mayDeclare(raw) && jsonpick.MayHoldKey(raw, keys)
}

// stageFirst is the record length from which mayHoldProject reads the
// stage before it searches for the keys.
const stageFirst = 1 << 10

// declare follows the project the records declare (the first absolute
// cwd of a meta record or native line, when no project was given): the
// lines after it, and the line itself, are checked for its paths. Only
// lines that may name one are parsed here; the test is the one
// lineScan.record made when it did this itself.
func (rd *reader) declare(raw []byte) {
	f := rd.f
	if rd.s.opts.Project != "" || f.kind != KindCapture && f.kind != KindFixture || !mayHoldProject(raw, rd.s.projectKeys) {
		return
	}
	t := bytes.TrimSpace(raw)
	if f.kind == KindFixture {
		t = bytes.TrimSuffix(t, []byte(","))
	}
	if len(t) == 0 || t[0] != '{' && t[0] != '[' || !gjson.ValidBytes(t) {
		return
	}
	v := gjson.ParseBytes(t)
	payload := v.Get("payload")
	if payload.Type != gjson.JSON {
		return
	}
	dir := providers.DeclaredProject(envelope.Stage(v.Get("stage").String()), v.Get("provider").String(), []byte(payload.Raw))
	if dir != "" && dir != rd.project && !rd.s.disabled[redact.RulePathProject] {
		rd.project = dir
		if m, err := rd.s.matcher(dir); err == nil {
			rd.m = m
		}
	}
}
