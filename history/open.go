package history

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"

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
	head, first, err := peek(path)
	if err != nil {
		return nil, err
	}
	if IsSQLite(head) {
		if t.Provider != "" && t.Provider != "opencode" {
			return nil, fmt.Errorf("%s is a SQLite database (opencode's), not a %s session", path, t.Provider)
		}
		e, err := OpenDB(ctx, path, t.Session)
		if err != nil {
			return nil, err
		}
		return &Opened{Entries: e, Provider: "opencode", Origin: path}, nil
	}
	provider := t.Provider
	if provider == "" {
		p, ok := DetectProvider(first)
		if !ok {
			return nil, fmt.Errorf("%s: not a stored session of a CLI evcap knows (give --provider)", path)
		}
		provider = p
	}
	if _, err := NewNormalizer(provider); err != nil {
		return nil, err
	}
	e, err := OpenFile(path, provider)
	if err != nil {
		return nil, err
	}
	return &Opened{Entries: e, Provider: provider, Origin: path}, nil
}

// peek reads the first bytes and the first lines of a file.
func peek(path string) ([]byte, [][]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, fmt.Errorf("open stored session: %w", err)
	}
	defer f.Close()
	head := make([]byte, 16)
	n, err := io.ReadFull(f, head)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return nil, nil, fmt.Errorf("read %s: %w", path, err)
	}
	head = head[:n]
	if IsSQLite(head) {
		return head, nil, nil
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, nil, fmt.Errorf("read %s: %w", path, err)
	}
	lr := lines.NewReader(f)
	var first [][]byte
	for len(first) < 8 {
		l, err := lr.Next()
		if len(l) > 0 {
			first = append(first, append([]byte(nil), l...))
		}
		if err != nil {
			break
		}
	}
	return head, first, nil
}
