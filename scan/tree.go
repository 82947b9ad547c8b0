package scan

import (
	"archive/zip"
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/evcap/evcap/internal/ctxread"
)

// FixtureFile is the name of the file that makes a directory a fixture.
const FixtureFile = "fixture.json"

// Result is the outcome of scanning paths: the findings and how many files
// were read.
type Result struct {
	Findings []Finding
	Files    int
	// tally, when set, takes the findings instead of Findings.
	tally *Tally
}

// readInto scans one file into res.
func (s *Scanner) readInto(r io.Reader, name string, kind Kind, res *Result) error {
	res.Files++
	if res.tally != nil {
		_, err := s.read(r, name, kind, res.tally.Add)
		return err
	}
	found, err := s.Read(r, name, kind)
	res.Findings = append(res.Findings, found...)
	return err
}

// TallyContext scans paths as PathsContext does, but counts the findings
// into t instead of returning them all, and returns how many files were
// read: memory stays bounded however many findings there are.
func (s *Scanner) TallyContext(ctx context.Context, paths []string, t *Tally) (int, error) {
	c := *s
	c.ctx = ctx
	res := Result{tally: t}
	err := c.paths(paths, &res)
	return res.Files, err
}

// Paths scans files and directory trees. A file given by name must be a
// capture, a fixture.json or a bundle (a .zip); anything else is refused
// with ErrNotScannable, as are devices and unreadable files. A FIFO, and
// "-" (Options.Stdin), are read once as a capture or a fixture.json. In a
// directory, every *.jsonl file is read as a capture and every fixture
// directory (one holding fixture.json) is read whole: fixture.json and
// every other file under it, goldens included. Other files of a directory
// are not read.
func (s *Scanner) Paths(paths []string) (Result, error) {
	var res Result
	err := s.paths(paths, &res)
	return res, err
}

func (s *Scanner) paths(paths []string, res *Result) error {
	for _, p := range paths {
		if p == Stdin {
			if s.opts.Stdin == nil {
				return fmt.Errorf("scan -: %w: no standard input to read", ErrNotScannable)
			}
			if err := s.stream(s.opts.Stdin, p, res); err != nil {
				return err
			}
			continue
		}
		fi, err := os.Stat(p)
		if err != nil {
			return fmt.Errorf("scan: %w", err)
		}
		switch {
		case fi.IsDir():
			if err := s.dir(p, res); err != nil {
				return err
			}
		case fi.Mode()&fs.ModeNamedPipe != 0:
			if err := s.fifo(p, res); err != nil {
				return err
			}
		case !fi.Mode().IsRegular():
			return fmt.Errorf("scan %s: %w: it is a %s, not a regular file", p, ErrNotScannable, modeName(fi.Mode()))
		default:
			if err := s.named(p, res); err != nil {
				return err
			}
		}
	}
	return nil
}

func modeName(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		return "socket"
	case m&fs.ModeDevice != 0:
		return "device"
	}
	return m.Type().String()
}

// fifo scans a capture or a fixture.json coming down a FIFO, read once; a
// read blocked on its quiet writer returns once the scan's context is
// done.
func (s *Scanner) fifo(p string, res *Result) error {
	f, err := os.Open(p)
	if err != nil {
		return fmt.Errorf("scan: %w", err)
	}
	defer f.Close()
	r, release := ctxread.File(s.ctx, f)
	defer release()
	return s.stream(r, p, res)
}

// stream scans what comes down a pipe (standard input, a FIFO): a
// capture, or a fixture.json, told by its first line as evcap's readers
// tell them ("{" alone). A bundle must be a file: its zip directory is at
// its end.
func (s *Scanner) stream(r io.Reader, name string, res *Result) error {
	br := bufio.NewReaderSize(r, 64<<10)
	head, _ := br.Peek(4)
	if bytes.HasPrefix(head, []byte("PK\x03\x04")) {
		return fmt.Errorf("scan %s: %w: a bundle (zip) is read from a file, not a pipe", name, ErrNotScannable)
	}
	kind := KindCapture
	if bytes.HasPrefix(head, []byte("{\n")) || bytes.HasPrefix(head, []byte("{\r\n")) {
		kind = KindFixture
	}
	return s.readInto(br, name, kind, res)
}

// named scans a file the user named: its kind from its name and content.
func (s *Scanner) named(p string, res *Result) error {
	f, err := os.Open(p)
	if err != nil {
		return fmt.Errorf("scan: %w", err)
	}
	defer f.Close()
	br := bufio.NewReader(f)
	head, _ := br.Peek(4)
	if bytes.HasPrefix(head, []byte("PK\x03\x04")) {
		fi, err := f.Stat()
		if err != nil {
			return fmt.Errorf("scan: %w", err)
		}
		return s.zip(f, fi.Size(), p, res)
	}
	var kind Kind
	if filepath.Base(p) == FixtureFile {
		kind = KindFixture
	} else {
		kind = KindCapture
	}
	if err := s.readInto(br, p, kind, res); err != nil {
		return err
	}
	// A fixture.json named on its own brings its directory along.
	if kind == KindFixture {
		return s.fixtureRest(filepath.Dir(p), res)
	}
	return nil
}

// dir walks a directory tree.
func (s *Scanner) dir(root string, res *Result) error {
	return filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return fmt.Errorf("scan: %w", err)
		}
		if d.IsDir() {
			if _, err := os.Stat(filepath.Join(p, FixtureFile)); err == nil {
				if err := s.fixtureDir(p, res); err != nil {
					return err
				}
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(p, ".jsonl") && d.Type().IsRegular() {
			return s.file(p, KindCapture, res)
		}
		return nil
	})
}

// fixtureDir scans fixture.json and every other file under a fixture
// directory.
func (s *Scanner) fixtureDir(dir string, res *Result) error {
	if err := s.file(filepath.Join(dir, FixtureFile), KindFixture, res); err != nil {
		return err
	}
	return s.fixtureRest(dir, res)
}

func (s *Scanner) fixtureRest(dir string, res *Result) error {
	var files []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return fmt.Errorf("scan: %w", err)
		}
		if d.IsDir() || p == filepath.Join(dir, FixtureFile) {
			return nil
		}
		files = append(files, p)
		return nil
	})
	if err != nil {
		return err
	}
	sort.Strings(files)
	for _, p := range files {
		fi, err := os.Lstat(p)
		if err != nil {
			return fmt.Errorf("scan: %w", err)
		}
		if !fi.Mode().IsRegular() {
			return fmt.Errorf("scan %s: %w: a fixture holds only regular files; this is a %s", p, ErrNotScannable, modeName(fi.Mode()))
		}
		if err := s.file(p, KindFile, res); err != nil {
			return err
		}
	}
	return nil
}

func (s *Scanner) file(p string, kind Kind, res *Result) error {
	f, err := os.Open(p)
	if err != nil {
		return fmt.Errorf("scan: %w", err)
	}
	defer f.Close()
	return s.readInto(f, p, kind, res)
}

// zip scans every entry of a bundle: captures as captures, fixture.json as
// a fixture, everything else line by line.
func (s *Scanner) zip(r io.ReaderAt, size int64, name string, res *Result) error {
	zr, err := zip.NewReader(r, size)
	if err != nil {
		return fmt.Errorf("scan %s: %w: %v", name, ErrNotScannable, err)
	}
	for _, e := range zr.File {
		if e.FileInfo().IsDir() {
			continue
		}
		kind := KindFile
		switch {
		case strings.HasSuffix(e.Name, ".jsonl"):
			kind = KindCapture
		case pathBase(e.Name) == FixtureFile:
			kind = KindFixture
		}
		rc, err := e.Open()
		if err != nil {
			return fmt.Errorf("scan %s: %s: %w", name, e.Name, err)
		}
		err = s.readInto(rc, name+":"+e.Name, kind, res)
		rc.Close()
		if err != nil {
			return err
		}
	}
	return nil
}

func pathBase(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[i+1:]
	}
	return p
}
