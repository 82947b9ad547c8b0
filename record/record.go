package record

import (
	"io"
	"os"
	"time"

	"github.com/evcap/evcap/envelope"
	"github.com/evcap/evcap/event"
	"github.com/evcap/evcap/redact"
)

// Defaults for Options.
const (
	// DefaultDir is where captures go when no output file is named.
	DefaultDir = "evcap-captures"
	// DefaultDrainTimeout bounds the wait for the child's pipes to close
	// after it exited (a grandchild may hold them open).
	DefaultDrainTimeout = 2 * time.Second
	// DefaultQueueBytes bounds the output waiting to be written to the
	// capture. A full queue holds the child back while the pipeline works,
	// and drops (recorded as a gap) once it has been waiting on a write of
	// the capture file, the renderer or the observer for
	// DefaultStallTimeout.
	DefaultQueueBytes   = 8 << 20
	DefaultStallTimeout = 2 * time.Second
	// DefaultDetectLines and DefaultDetectWait bound how much output is
	// held back before the capture file is opened: until the provider and
	// the CLI's version are known, this many stdout lines were read, or
	// this long has passed since the first output.
	DefaultDetectLines = 8
	DefaultDetectWait  = 500 * time.Millisecond
)

// Renderer shows normalized events live (render/term's Renderer is one).
type Renderer interface {
	Render(e event.Event) error
	Close() error
}

// Observer watches a recording from inside the pipeline. Observe is called
// for every record right after it was written, one call at a time, by the
// pipeline's writing steps, so it must return at once (hand work to a
// bounded queue) and
// must not keep rec or its slices after it returns. Notes is asked once,
// just before capture.end is written; what it returns goes into that
// record's notes.
type Observer interface {
	Observe(rec *envelope.Record)
	Notes() []string
}

// Options configure a recording. The zero value records to a new file in
// DefaultDir, detects the provider, redacts nothing and shows nothing.
type Options struct {
	// Provider is the provider's name, or "" / "auto" to detect it from
	// the first lines of output.
	Provider string
	// NewNormalizer makes a normalizer for a provider name (cmd's provider
	// table). Without it nothing is normalized.
	NewNormalizer func(provider string) (event.Normalizer, error)
	// Output is the capture file to write: created, or replacing what the
	// path held (a large old capture is let go in the background, so the
	// child starts without waiting for it; see openOutput). When empty a
	// new file named by capture.FileName is made in Dir.
	Output string
	// Dir is the directory for new capture files (DefaultDir when empty).
	Dir string
	// Redactor is applied to every payload before it is written; nil
	// writes payloads as they came (cmd warns loudly).
	Redactor *redact.Redactor
	// NewRenderer makes the live renderer, writing to w (evcap's stderr,
	// shared with the status line); nil renders nothing.
	NewRenderer func(w io.Writer) Renderer
	// Passthrough receives the child's stdout unchanged, as it arrives.
	Passthrough io.Writer
	// Console is evcap's standard error: the child's stderr is copied to
	// it, and the renderer and status line write to it.
	Console io.Writer
	// Status draws a one-line live status on Console (only for a terminal).
	Status bool
	// Stdin is given to the child as its standard input; nil gives it no
	// input. Without RecordStdin the child reads the file directly.
	Stdin *os.File
	// RecordStdin puts a pipe between Stdin and the child: evcap copies
	// every byte to the child as it arrives and records each line as a
	// native_out record (what the integration told the agent). cmd sets it
	// when stdin is not a terminal; an interactive terminal is left to the
	// child.
	RecordStdin bool
	// Transparent runs the child as if evcap were not between it and its
	// parent (evcap shim): it stays in evcap's process group, so a
	// terminal's signals and job control reach it directly; signals sent
	// to evcap itself are forwarded to the child alone (SIGINT and SIGQUIT
	// only when stdin is not a terminal, since a terminal's ^C reached the
	// child already), and a second SIGINT is not turned into SIGKILL.
	// On Windows the child shares evcap's console, so it got every
	// console event evcap got; only SIGKILL is acted on (the child is
	// terminated).
	Transparent bool
	// Signals delivers the signals to forward (SIGINT, SIGTERM, SIGHUP;
	// on Windows os.Interrupt, SIGTERM or os.Kill: see Command).
	Signals <-chan os.Signal
	// UntilIdle ends an SSE or stdin recording when the session reports
	// it is idle after having been busy.
	UntilIdle bool
	// EvcapVersion goes into capture.start.
	EvcapVersion string
	// Now is the clock; time.Now when nil.
	Now func() time.Time

	// Lookahead and MaxHeld configure the stream redaction of deltas
	// (sanitize.LineOptions); 0 means the defaults, 1 KiB of text per
	// block and 4 MiB of held lines.
	Lookahead int
	MaxHeld   int

	// Observer, when set, sees every record as it is written (after
	// redaction) and adds notes to capture.end; evcap record --otlp
	// exports spans through it while the run goes on.
	Observer Observer

	// LongLine, when set, is told the length known so far of a line of
	// the child's stdout longer than 1 MiB while it is assembled (more
	// than once as it grows; with the whole length as soon as its end is
	// queued), from the pipeline goroutine. evcap lets its soft memory
	// limit follow the longest line with it; record itself holds a few
	// copies of such a line while it is redacted and written.
	LongLine func(n int)

	DrainTimeout time.Duration
	QueueBytes   int
	// StallTimeout: see DefaultStallTimeout.
	StallTimeout time.Duration
	DetectLines  int
	DetectWait   time.Duration
}

func (o *Options) defaults() {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Dir == "" {
		o.Dir = DefaultDir
	}
	if o.Provider == "auto" {
		o.Provider = ""
	}
	if o.DrainTimeout <= 0 {
		o.DrainTimeout = DefaultDrainTimeout
	}
	if o.QueueBytes <= 0 {
		o.QueueBytes = DefaultQueueBytes
	}
	if o.StallTimeout <= 0 {
		o.StallTimeout = DefaultStallTimeout
	}
	if o.DetectLines <= 0 {
		o.DetectLines = DefaultDetectLines
	}
	if o.DetectWait <= 0 {
		o.DetectWait = DefaultDetectWait
	}
	if o.Console == nil {
		o.Console = io.Discard
	}
}

// Result is how a recording ended.
type Result struct {
	// Path is the capture file written ("" when none could be created).
	Path string
	// ExitCode is what evcap should exit with: the child's exit code,
	// 128+signal when it died by a signal, 127 when the command was not
	// found, 126 when it could not be executed; 0 for stdin and SSE.
	ExitCode int
	// Signal names the signal that ended the child ("SIGSEGV"), if one did.
	Signal string
	// Records is the number of records written.
	Records int64
	// Provider is the provider recorded ("" when undetected).
	Provider string
	// Notes are the things capture.end notes (torn line, drain timeout…).
	Notes []string
}
