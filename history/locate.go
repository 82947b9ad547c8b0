package history

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/evcap/evcap/provider"
	"github.com/evcap/evcap/providers"
	"github.com/tidwall/gjson"
)

// ErrNotFound: no stored session with the asked id is where the CLI keeps
// its sessions.
var ErrNotFound = errors.New("stored session not found")

// Env is how Locate learns the environment: a lookup of variables and
// the home directory.
type Env struct {
	Getenv func(string) string
	Home   string
}

func (e Env) dir(variable, fallback string) string {
	if e.Getenv != nil && variable != "" {
		if v := e.Getenv(variable); v != "" {
			return v
		}
	}
	return filepath.Join(e.Home, filepath.FromSlash(fallback))
}

// Locate finds where the CLI of the named provider keeps the session with
// the given id, in the default places (see the package doc; each
// provider's descriptor says where, provider.SessionStore). For a CLI that
// keeps every session in one database (opencode) it returns the database
// (OpenDB picks one by id), and id may be empty. For the others id is
// required; a unique prefix of it is enough.
func Locate(name, id string, env Env) (string, error) {
	d, known := providers.Lookup(name)
	s := d.Sessions
	if known && s.Path == "" {
		known = false
	}
	if !(known && s.Database) && id == "" {
		return "", fmt.Errorf("locate a %s session: no session id", name)
	}
	if !known {
		return "", fmt.Errorf("locate a session: unknown provider %q (known: %s)", name, strings.Join(Providers(), ", "))
	}
	dataDir := env.dir(s.DirEnv, s.HomeDir)
	if s.Database {
		p := filepath.Join(dataDir, filepath.FromSlash(s.Path))
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("locate %s database: %w", name, err)
		}
		return p, nil
	}
	root := filepath.Join(dataDir, filepath.FromSlash(s.Path))
	var found []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == root {
				return err
			}
			return nil // an unreadable corner does not stop the search
		}
		if !d.IsDir() && isSession(s, root, p, id) {
			found = append(found, p)
		}
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("locate %s session %s under %s: %w", name, id, root, err)
	}
	switch len(found) {
	case 0:
		return "", fmt.Errorf("%s session %s under %s: %w", name, id, root, ErrNotFound)
	case 1:
		return found[0], nil
	}
	sort.Strings(found)
	return "", fmt.Errorf("%s session %s is ambiguous under %s: %s", name, id, root, strings.Join(found, ", "))
}

// isSession reports whether the file at p, found under root, is a session
// file of s whose id starts with id: its name and place first, then the
// id in its name, then (only when the name does not show it) its first line.
func isSession(s provider.SessionStore, root, p, id string) bool {
	b := filepath.Base(p)
	if !strings.HasPrefix(b, s.Prefix) || !strings.HasSuffix(b, s.Suffix) {
		return false
	}
	if s.Parent != "" && filepath.Base(filepath.Dir(p)) != s.Parent {
		return false
	}
	if s.Depth > 0 {
		dir := filepath.Dir(p)
		for range s.Depth {
			dir = filepath.Dir(dir)
		}
		if dir != root {
			return false
		}
	}
	switch s.NameID {
	case provider.NameStartsWithID:
		if strings.HasPrefix(b, s.Prefix+id) {
			return true
		}
	case provider.NameContainsID:
		if strings.Contains(b, id) {
			return true
		}
	}
	return s.IDField != "" && firstLineHas(p, s.IDField, id)
}

// firstLineHas reports whether the first line of the file at p has a
// string at path that starts with prefix.
func firstLineHas(p, path, prefix string) bool {
	f, err := os.Open(p)
	if err != nil {
		return false
	}
	defer f.Close()
	// The first line of a rollout holds the base instructions (tens of
	// KiB); a session id comes near its start, so a bounded read is enough.
	r := bufio.NewReaderSize(f, 1<<20)
	line, _ := r.ReadSlice('\n')
	if !gjson.ValidBytes(line) {
		// A cut-off first line: look for the field by its JSON text.
		key := path[strings.LastIndexByte(path, '.')+1:]
		return strings.Contains(string(line), `"`+key+`":"`+prefix)
	}
	return strings.HasPrefix(gjson.GetBytes(line, path).String(), prefix)
}
