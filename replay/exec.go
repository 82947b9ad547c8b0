package replay

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"
)

// ExecOptions say how Exec runs a command over a native stream.
type ExecOptions struct {
	// Command is a shell command line ("node bridge.js --quiet"), run
	// with sh -c in Dir (the current directory when empty), with Env
	// added to this process's environment.
	Command string
	Dir     string
	Env     []string
	// Chunking splits the stream into the writes to the command's stdin.
	Chunking Chunking
	// Timing paces the writes (default: as fast as the command reads).
	Timing Timing
	// Lockstep waits, after each write that ends a native line, until the
	// command's stdout has been quiet for Settle before writing on, so
	// that every output line is attributed to the native lines that
	// produced it (Driven.LineFed). It costs about Settle per line; Check
	// runs it only to explain a mismatch.
	Lockstep bool
	// Settle is the quiet time of Lockstep (default 40ms); a line whose
	// output keeps coming is left after 2s.
	Settle time.Duration
	// Gap is the pause after a random-chunking write that ends inside a
	// line (default 2ms) on systems where Exec cannot see whether the
	// command has read a write yet (on Linux it waits for that instead,
	// after every write, at most 2s each).
	Gap time.Duration
}

// Timing is how fast Exec feeds the stream: as fast as the command reads
// (the zero value, "max"), or with the recorded gaps between native lines
// ("original") divided by Speed ("x2" is twice as fast). Fixtures keep no
// timestamps, so their lines all have At 0 and only captures can be paced.
type Timing struct {
	Original bool
	Speed    float64
}

// ParseTiming reads "max", "original" or "xN" (N a positive number).
func ParseTiming(s string) (Timing, error) {
	switch s {
	case "", "max":
		return Timing{}, nil
	case "original":
		return Timing{Original: true, Speed: 1}, nil
	}
	if n, ok := strings.CutPrefix(s, "x"); ok {
		f, err := strconv.ParseFloat(n, 64)
		if err == nil && f > 0 {
			return Timing{Original: true, Speed: f}, nil
		}
	}
	return Timing{}, fmt.Errorf("%w: timing %q: want max, original or xN (x2, x0.5)", ErrBadInput, s)
}

// String is the form ParseTiming reads.
func (t Timing) String() string {
	switch {
	case !t.Original:
		return "max"
	case t.Speed == 1:
		return "original"
	}
	return "x" + strconv.FormatFloat(t.Speed, 'g', -1, 64)
}

// ErrExecStart marks a command that could not be started at all.
var ErrExecStart = errors.New("exec: cannot start command")

// Exec runs o.Command once with lines (as the CLI printed them, each with
// its newline) written to its stdin split by o.Chunking, and returns its
// stdout with each line attributed to the native lines written while it
// was produced, its stderr, and how it ended (Driven.Err: nil for exit
// status 0, else the *exec.ExitError or the context's error). When the
// command exits before reading everything, feeding stops there; ErrFed
// says what was being written then. The error is non-nil only when the
// command cannot be started (wrapping ErrExecStart).
//
// This is the runner behind evcap replay --exec; other tools (promote
// --exec, minimize --exec) call it directly and compare the result with
// CompareDriven, or look at Driven.Err for the exit status.
func Exec(ctx context.Context, lines []NativeLine, o ExecOptions) (*Driven, error) {
	if strings.TrimSpace(o.Command) == "" {
		return nil, fmt.Errorf("%w: empty command", ErrExecStart)
	}
	if o.Settle <= 0 {
		o.Settle = 40 * time.Millisecond
	}
	if o.Gap <= 0 {
		o.Gap = 2 * time.Millisecond
	}
	cmd := exec.CommandContext(ctx, "sh", "-c", o.Command)
	cmd.Dir = o.Dir
	cmd.Env = append(os.Environ(), o.Env...)
	cmd.WaitDelay = 2 * time.Second
	// A pipe of our own (not StdinPipe) so that the write end is an
	// *os.File whose unread bytes can be counted.
	stdinR, stdin, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("%w: %q: %w", ErrExecStart, o.Command, err)
	}
	defer stdin.Close()
	cmd.Stdin = stdinR
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("%w: %q: %w", ErrExecStart, o.Command, err)
	}
	var stderr tailBuffer
	cmd.Stderr = &stderr
	err = cmd.Start()
	stdinR.Close()
	if err != nil {
		return nil, fmt.Errorf("%w: %q: %w", ErrExecStart, o.Command, err)
	}
	var (
		mu       sync.Mutex
		fed      Fed
		lastOut  time.Time
		readDone = make(chan struct{})
	)
	current := func() Fed { mu.Lock(); defer mu.Unlock(); return fed }
	w := &attrWriter{fed: current}
	go func() {
		defer close(readDone)
		buf := make([]byte, 32<<10)
		for {
			n, err := stdout.Read(buf)
			if n > 0 {
				w.Write(buf[:n])
				mu.Lock()
				lastOut = time.Now()
				mu.Unlock()
			}
			if err != nil {
				return
			}
		}
	}()
	settle := func() {
		start := time.Now()
		for time.Since(start) < 2*time.Second {
			mu.Lock()
			quiet := time.Since(lastOut) >= o.Settle && time.Since(start) >= o.Settle
			mu.Unlock()
			if quiet {
				return
			}
			select {
			case <-readDone:
				return
			case <-ctx.Done():
				return
			case <-time.After(o.Settle / 8):
			}
		}
	}
	// drain holds the next write back until the command has read this
	// one, so that each of its reads gets one piece (as Drive's Reads do)
	// rather than whatever piled up in the pipe. It says whether the read
	// was seen (false also where the pipe cannot be asked, after a Gap for
	// random pieces that end inside a line) and whether the command's
	// stdout closed (it exited) first. The first write waits up to 10s,
	// for a command that is slow to start; later ones 2s.
	drain := func(limit time.Duration) (seen, gone bool) {
		if _, ok := unread(stdin); !ok {
			if o.Chunking.Kind == ChunkRandom {
				select {
				case <-time.After(o.Gap):
				case <-ctx.Done():
				}
			}
			return false, false
		}
		start := time.Now()
		// A reader that is running takes a piece within microseconds:
		// ask again at once a few times before sleeping between asks.
		for range 200 {
			if n, _ := unread(stdin); n == 0 {
				return true, false
			}
			runtime.Gosched()
		}
		for wait := 20 * time.Microsecond; time.Since(start) < limit; wait = min(2*wait, time.Millisecond) {
			if n, _ := unread(stdin); n == 0 {
				return true, false
			}
			select {
			case <-readDone:
				return false, true
			case <-ctx.Done():
				return false, false
			case <-time.After(wait):
			}
		}
		return false, false
	}
	begin := time.Now()
	pending := -1 // first line written since output last settled
	first := true
	lastRead := Fed{}
	for c := range o.Chunking.Chunks(lines) {
		if o.Timing.Original && o.Timing.Speed > 0 && c.First < len(lines) {
			wait := time.Duration(float64(lines[c.First].At)/o.Timing.Speed) - time.Since(begin)
			if wait > 0 {
				select {
				case <-time.After(wait):
				case <-ctx.Done():
				}
			}
		}
		if ctx.Err() != nil {
			break
		}
		if pending < 0 || !o.Lockstep {
			pending = c.First
		}
		mu.Lock()
		fed = Fed{pending, c.Last}
		mu.Unlock()
		if _, err := stdin.Write(c.Data); err != nil {
			break // the command stopped reading (exited): feed no more
		}
		limit := 2 * time.Second
		if first {
			limit, first = 10*time.Second, false
		}
		seen, gone := drain(limit)
		if seen {
			lastRead = Fed{pending, c.Last}
		}
		if gone {
			// It exited without reading this piece: what it was reading
			// when it stopped is the piece before.
			mu.Lock()
			fed = lastRead
			mu.Unlock()
			break
		}
		if o.Lockstep && c.LineEnd {
			settle()
			pending = -1
		}
	}
	stdin.Close()
	<-readDone
	werr := cmd.Wait()
	if werr == nil && ctx.Err() != nil {
		werr = ctx.Err()
	}
	d := &Driven{Chunking: o.Chunking, Err: werr, ErrFed: current(), Stderr: stderr.Bytes()}
	d.Output, d.LineFed = w.finish()
	return d, nil
}

// tailBuffer keeps the last 64 KiB written to it.
type tailBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b.Write(p)
	if over := t.b.Len() - 64<<10; over > 0 {
		t.b.Next(over)
	}
	return len(p), nil
}

func (t *tailBuffer) Bytes() []byte {
	t.mu.Lock()
	defer t.mu.Unlock()
	return bytes.Clone(t.b.Bytes())
}
