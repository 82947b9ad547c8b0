package history

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"

	"github.com/evcap/evcap/internal/ctxread"
	"github.com/evcap/evcap/internal/lines"
)

// Target says which stored session to read: a path (a JSONL session file,
// an opencode database) or an opencode server URL, and/or a session id to
// look up in the CLI's default place (see Locate). Provider may be empty
// when Path tells it.
type Target struct {
	Path     string
	Provider string
	Session  string
	Env      Env
	// Client is used for a server URL; http.DefaultClient when nil.
	Client *http.Client
	// Stdin is read for Path "-" (a stored JSONL session piped in).
	Stdin io.Reader
}

// Opened is a stored session ready to import.
type Opened struct {
	Entries  Entries
	Provider string
	// Origin is the path or URL it is read from.
	Origin string
}

// Open resolves t and opens the stored session for reading. It reads
// nothing but the session: the CLI's files are never written.
func Open(ctx context.Context, t Target) (*Opened, error) {
	path := t.Path
	if strings.HasPrefix(path, "http://") || strings.HasPrefix(path, "https://") {
		if t.Provider != "" && t.Provider != "opencode" {
			return nil, fmt.Errorf("a server URL is an opencode server, not %s", t.Provider)
		}
		e, err := OpenServer(ctx, t.Client, path, t.Session)
		if err != nil {
			return nil, err
		}
		return &Opened{Entries: e, Provider: "opencode", Origin: path}, nil
	}
	if path == "" {
		if t.Provider == "" {
			return nil, errors.New("no stored session: give a PATH, or --provider and --session")
		}
		p, err := Locate(t.Provider, t.Session, t.Env)
		if err != nil {
			return nil, err
		}
		path = p
	}
	f, err := openStored(path, t.Stdin)
	if err != nil {
		return nil, err
	}
	r, stop := ctxread.File(ctx, f)
	abandon := func() {
		stop()
		if path != "-" {
			f.Close()
		}
	}
	br := bufio.NewReaderSize(r, 64<<10)
	head, err := br.Peek(16)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
		abandon()
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if IsSQLite(head) {
		// The database is opened by its path (read-only); this reading
		// of its first bytes is closed first.
		st, statErr := f.Stat()
		abandon()
		if t.Provider != "" && t.Provider != "opencode" {
			return nil, fmt.Errorf("%s is a SQLite database (opencode's), not a %s session", path, t.Provider)
		}
		if statErr != nil || !st.Mode().IsRegular() {
			return nil, fmt.Errorf("%s is a SQLite database (opencode's): give its file, not a pipe", path)
		}
		e, err := OpenDB(ctx, path, t.Session)
		if err != nil {
			return nil, err
		}
		return &Opened{Entries: e, Provider: "opencode", Origin: path}, nil
	}
	// The first lines tell the provider; what reading them took from the
	// input is read again from memory, so the input is read once, front
	// to back (a FIFO or a pipe as well as a file).
	var seen bytes.Buffer
	first, err := firstLines(io.TeeReader(br, &seen), 8)
	if err != nil {
		abandon()
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	provider := t.Provider
	if provider == "" {
		p, ok := DetectProvider(first)
		if !ok {
			abandon()
			return nil, fmt.Errorf("%s: not a stored session of a CLI evcap knows (give --provider)", path)
		}
		provider = p
	}
	if _, err := NewNormalizer(provider); err != nil {
		abandon()
		return nil, err
	}
	e := &fileEntries{f: f, stop: stop, lr: lines.NewReader(io.MultiReader(&seen, br)), name: path, provider: provider}
	return &Opened{Entries: e, Provider: provider, Origin: path}, nil
}

// openStored opens the stored session at path, or stdin for "-".
func openStored(path string, stdin io.Reader) (*os.File, error) {
	if path == "-" {
		if f, ok := stdin.(*os.File); ok && f != nil {
			return f, nil
		}
		return nil, errors.New("open stored session: standard input (-) is not a file or a pipe")
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open stored session: %w", err)
	}
	return f, nil
}

// firstLines reads up to n non-empty lines from r.
func firstLines(r io.Reader, n int) ([][]byte, error) {
	lr := lines.NewReader(r)
	var first [][]byte
	for len(first) < n {
		l, err := lr.Next()
		if len(l) > 0 {
			first = append(first, append([]byte(nil), l...))
		}
		if errors.Is(err, io.EOF) || errors.Is(err, lines.ErrTorn) {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	return first, nil
}
