package source

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/evcap/evcap/fixtures"
	"github.com/evcap/evcap/internal/ctxread"
	"github.com/evcap/evcap/internal/jsonpick"
	"github.com/tidwall/gjson"
)

// Kind says what an input holds.
type Kind int

// The kinds of input.
const (
	// KindRaw is what an agent CLI printed, one line per event (or SSE).
	KindRaw Kind = iota + 1
	// KindCapture is an evcap capture: one envelope record per line.
	KindCapture
	// KindFixture is a promoted fixture (fixture.json, or its directory).
	KindFixture
)

func (k Kind) String() string {
	switch k {
	case KindRaw:
		return "raw agent CLI output"
	case KindCapture:
		return "capture"
	case KindFixture:
		return "fixture"
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// Stdin is the name that means standard input.
const Stdin = "-"

// Sentinel errors callers test with errors.Is.
var (
	// ErrDirectory: the path is a directory that holds no fixture.json.
	ErrDirectory = errors.New("is a directory without " + fixtures.FileName + " (give a capture file, a fixture directory or " + fixtures.FileName + ")")
	// ErrInvalidFixture: a fixture.json that does not pass the fixture
	// schema or its sequence rules.
	ErrInvalidFixture = errors.New("invalid fixture")
)

// Input is one opened input. Read it with Reader; Close releases the file.
type Input struct {
	// Name is the name the input was opened by ("-" for standard input).
	Name string
	// Kind is what the input holds.
	Kind Kind
	// Fixture is the loaded fixture when Kind is KindFixture, else nil.
	Fixture *fixtures.Fixture
	// Path is the file that was read: Name, or Name/fixture.json for a
	// fixture directory; empty for standard input.
	Path string
	// Live says that a read of the input can wait for its writer: it is
	// a pipe, a FIFO, a socket or a terminal, or standard input of a
	// kind that cannot be told. A regular file is not live.
	Live bool

	r      io.Reader
	closer io.Closer
	// release undoes what OpenContext set up on the file for ctx.
	release func() bool
}

// Open is OpenContext with a context that is never done.
func Open(name string, stdin io.Reader) (*Input, error) {
	return OpenContext(context.Background(), name, stdin)
}

// OpenContext opens name ("-": stdin) once and sniffs what it holds. A
// directory is read as a fixture directory (its fixture.json); a file named
// fixture.json as a fixture. Errors name the input and say what is wrong;
// a directory without fixture.json fails at once with ErrDirectory.
//
// A FIFO is opened like any file: the open waits for a writer, as every
// program reading a FIFO does, and then the input streams.
//
// Once ctx is done, every read of the input (the sniffing of the first
// line included) fails with ctx's cause, and a read that is blocked on a
// quiet FIFO, pipe or terminal returns at once (its read deadline is moved
// into the past), so a command reading the input stops within one read.
// The open itself of a FIFO that no writer opens is not interrupted.
func OpenContext(ctx context.Context, name string, stdin io.Reader) (*Input, error) {
	if err := context.Cause(ctx); err != nil {
		return nil, err
	}
	if name == Stdin {
		if stdin == nil {
			return nil, errors.New("standard input (-): no standard input to read")
		}
		in := &Input{Name: name, Live: true}
		var c io.Closer
		if f, ok := stdin.(*os.File); ok {
			if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
				in.Live = false
			}
			f, closeF := ctxread.Pollable(f)
			stdin, c = f, closerFunc(closeF)
			in.release = ctxread.Deadline(ctx, f)
		}
		sniffed, err := sniff(ctx, in, ctxread.Reader(ctx, stdin), c)
		if err != nil {
			if in.release != nil {
				in.release()
			}
			if c != nil {
				c.Close()
			}
		}
		return sniffed, err
	}
	st, err := os.Stat(name)
	if err != nil {
		return nil, err // *fs.PathError: "stat NAME: reason"
	}
	if st.IsDir() {
		p := filepath.Join(name, fixtures.FileName)
		if fst, err := os.Stat(p); err != nil || fst.IsDir() {
			return nil, fmt.Errorf("%s: %w", name, ErrDirectory)
		}
		return openFixture(ctx, &Input{Name: name, Path: p})
	}
	if filepath.Base(name) == fixtures.FileName && st.Mode().IsRegular() {
		return openFixture(ctx, &Input{Name: name, Path: name})
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", name, err)
	}
	in := &Input{Name: name, Path: name, Live: !st.Mode().IsRegular(), release: ctxread.Deadline(ctx, f)}
	in, err = sniff(ctx, in, ctxread.Reader(ctx, f), f)
	if err != nil {
		f.Close()
		return nil, err
	}
	return in, nil
}

// Interruptible is f as a reader whose reads fail with ctx's cause once
// ctx is done, a read blocked on a quiet FIFO, pipe or terminal included
// (its deadline is moved into the past; standard input of that kind is
// opened again to take one, see package internal/ctxread). release stops watching
// ctx and closes what was opened again; f itself is left open. For a
// command that reads a file it opened itself (or standard input) without
// Open's sniffing: spooling a FIFO, or reading a regular file twice.
func Interruptible(ctx context.Context, f *os.File) (r io.Reader, release func()) {
	return ctxread.File(ctx, f)
}

// closerFunc makes a close function an io.Closer.
type closerFunc func() error

func (f closerFunc) Close() error { return f() }

// Reader returns the input's bytes: a capture's lines or raw output as they
// are (the sniffed first line included), and a fixture as capture records
// (see FixtureRecords). Read it once.
func (in *Input) Reader() io.Reader { return in.r }

// Close closes the underlying file; standard input is left open.
func (in *Input) Close() error {
	if in.release != nil {
		in.release()
	}
	if in.closer == nil {
		return nil
	}
	return in.closer.Close()
}

func openFixture(ctx context.Context, in *Input) (*Input, error) {
	doc, err := os.ReadFile(in.Path)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", in.Path, err)
	}
	in, err = fromFixtureDoc(in, doc)
	if err != nil {
		return nil, err
	}
	in.r = ctxread.Reader(ctx, in.r)
	return in, nil
}

func fromFixtureDoc(in *Input, doc []byte) (*Input, error) {
	if err := fixtures.Validate(doc); err != nil {
		return nil, fmt.Errorf("%s: %w: %w", in.Name, ErrInvalidFixture, err)
	}
	fx := new(fixtures.Fixture)
	if err := json.Unmarshal(doc, fx); err != nil {
		return nil, fmt.Errorf("%s: %w: %w", in.Name, ErrInvalidFixture, err)
	}
	in.Kind, in.Fixture = KindFixture, fx
	in.r = FixtureRecords(fx)
	return in, nil
}

// sniff reads the first line of r (whole, whatever its length) and puts it
// back in front of the rest, so whoever reads the input sees it from its
// first byte.
func sniff(ctx context.Context, in *Input, r io.Reader, c io.Closer) (*Input, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	first, err := br.ReadBytes('\n')
	if err != nil && err != io.EOF {
		return nil, fmt.Errorf("read %s: %w", in.Name, err)
	}
	line := bytes.TrimRight(first, "\r\n")
	switch {
	case IsCaptureLine(line):
		in.Kind = KindCapture
	case bytes.Equal(bytes.TrimSpace(line), []byte("{")) && err == nil:
		// A fixture.json on a stream: it is one JSON document, read whole
		// as package fixtures does with a file.
		rest, rerr := io.ReadAll(br)
		if rerr != nil {
			return nil, fmt.Errorf("read %s: %w", in.Name, rerr)
		}
		in.closer = c
		in, err := fromFixtureDoc(in, append(first, rest...))
		if err != nil {
			return nil, err
		}
		in.r = ctxread.Reader(ctx, in.r)
		return in, nil
	default:
		in.Kind = KindRaw
	}
	in.r = io.MultiReader(bytes.NewReader(first), br)
	in.closer = c
	return in, nil
}

// IsCaptureLine reports whether line is an evcap capture record: a JSON
// object with schemaVersion and stage, which no agent CLI prints. A line
// that cannot hold a stage member (jsonpick.MayHoldKey) is not validated:
// the first line of a raw stream can be a tool's output of many MiB, and
// it is judged twice (on opening, and by the native reader).
func IsCaptureLine(line []byte) bool {
	if !jsonpick.MayHoldKey(line, captureKeys) || !jsonpick.Valid(line) {
		return false
	}
	v := gjson.ParseBytes(line)
	return v.IsObject() && v.Get("schemaVersion").Exists() && v.Get("stage").Exists()
}

// captureKeys holds a lower-case member every capture record has.
var captureKeys = []string{"stage"}
