package history

import (
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/evcap/evcap/internal/lines"
	"github.com/evcap/evcap/providers"
)

// Entry is one stored entry of a session: a JSON line as the CLI wrote it
// (or, for opencode, a message with its parts) and the time the CLI stored
// with it (zero when it stored none).
type Entry struct {
	Line []byte
	Time time.Time
}

// Entries yields the entries of one stored session in stored order. Next
// returns io.EOF after the last one; the Line it returns is valid until
// the next call.
type Entries interface {
	Next() (Entry, error)
	Close() error
}

// ErrTornEntry is reported (wrapped, with the entry) for a last line the
// CLI had not finished writing; the entry is imported all the same.
var ErrTornEntry = errors.New("last stored line has no newline (the CLI was writing it)")

// entryTime reads the timestamp a provider stores with an entry (its
// descriptor's HistoryTime); zero for a provider evcap does not know.
func entryTime(provider string, line []byte) time.Time {
	if d, ok := providers.Lookup(provider); ok && d.HistoryTime != nil {
		return d.HistoryTime(line)
	}
	return time.Time{}
}

// fileEntries reads a JSONL session file line by line.
type fileEntries struct {
	f        *os.File
	stop     func() // releases the context's watch (ctxread.File); nil when none
	lr       *lines.Reader
	name     string
	provider string
}

// OpenFile opens a stored JSONL session (Claude Code, Codex, Gemini CLI)
// for reading. The file is only read.
func OpenFile(path, provider string) (Entries, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open stored session: %w", err)
	}
	return &fileEntries{f: f, lr: lines.NewReader(f), name: path, provider: provider}, nil
}

// ReaderEntries reads a stored JSONL session from r (name is for errors).
func ReaderEntries(r io.Reader, name, provider string) Entries {
	return &fileEntries{lr: lines.NewReader(r), name: name, provider: provider}
}

func (e *fileEntries) Next() (Entry, error) {
	for {
		line, err := e.lr.Next()
		torn := errors.Is(err, lines.ErrTorn)
		if err != nil && !torn {
			if errors.Is(err, io.EOF) {
				return Entry{}, io.EOF
			}
			return Entry{}, fmt.Errorf("%s: line %d: %w", e.name, e.lr.Line()+1, err)
		}
		if len(line) == 0 && !torn {
			continue // a blank line is no entry
		}
		ent := Entry{Line: line, Time: entryTime(e.provider, line)}
		if torn {
			return ent, fmt.Errorf("%s: line %d: %w", e.name, e.lr.Line(), ErrTornEntry)
		}
		return ent, nil
	}
}

func (e *fileEntries) Close() error {
	if e.stop != nil {
		e.stop()
	}
	if e.f == nil || e.name == "-" {
		return nil
	}
	return e.f.Close()
}
