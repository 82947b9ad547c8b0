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
	if e.Getenv != nil {
		if v := e.Getenv(variable); v != "" {
			return v
		}
	}
	return filepath.Join(e.Home, fallback)
}

// Locate finds where the CLI of provider keeps the session with the given
// id, in the default places (see the package doc). For opencode it returns
// the database (which holds every session; OpenDB picks one by id), and
// id may be empty. For the others id is required; a unique prefix of it
// is enough.
func Locate(provider, id string, env Env) (string, error) {
	if provider != "opencode" && id == "" {
		return "", fmt.Errorf("locate a %s session: no session id", provider)
	}
	var (
		root  string
		match func(path string) bool
	)
	switch provider {
	case "claude":
		root = filepath.Join(env.dir("CLAUDE_CONFIG_DIR", ".claude"), "projects")
		match = func(p string) bool {
			return filepath.Ext(p) == ".jsonl" && strings.HasPrefix(filepath.Base(p), id) &&
				filepath.Dir(filepath.Dir(p)) == root
		}
	case "codex":
		root = filepath.Join(env.dir("CODEX_HOME", ".codex"), "sessions")
		match = func(p string) bool {
			b := filepath.Base(p)
			return strings.HasPrefix(b, "rollout-") && strings.HasSuffix(b, ".jsonl") &&
				(strings.Contains(b, id) || firstLineHas(p, "payload.id", id))
		}
	case "gemini":
		root = filepath.Join(env.Home, ".gemini", "tmp")
		match = func(p string) bool {
			b := filepath.Base(p)
			return filepath.Base(filepath.Dir(p)) == "chats" && strings.HasPrefix(b, "session-") &&
				strings.HasSuffix(b, ".jsonl") && firstLineHas(p, "sessionId", id)
		}
	case "opencode":
		p := filepath.Join(env.dir("XDG_DATA_HOME", filepath.Join(".local", "share")), "opencode", "opencode.db")
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("locate opencode database: %w", err)
		}
		return p, nil
	default:
		return "", fmt.Errorf("locate a session: unknown provider %q (known: %s)", provider, strings.Join(Providers(), ", "))
	}
	var found []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == root {
				return err
			}
			return nil // an unreadable corner does not stop the search
		}
		if !d.IsDir() && match(p) {
			found = append(found, p)
		}
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("locate %s session %s under %s: %w", provider, id, root, err)
	}
	switch len(found) {
	case 0:
		return "", fmt.Errorf("%s session %s under %s: %w", provider, id, root, ErrNotFound)
	case 1:
		return found[0], nil
	}
	sort.Strings(found)
	return "", fmt.Errorf("%s session %s is ambiguous under %s: %s", provider, id, root, strings.Join(found, ", "))
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
