package census

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Input is one file to count, as Inputs lists it.
type Input struct {
	// Name is the path, or "-" for standard input.
	Name string
	// InTree is true for a file found by searching a directory: when no
	// provider's output fits it, the census skips it (Census.Skip)
	// instead of failing, because a tree of captures also holds request
	// logs and other JSON.
	InTree bool
}

// Extensions are the file name endings a directory search takes: raw
// output and captures (.jsonl, .ndjson) and raw opencode SSE (.sse.txt).
func Extensions() []string { return []string{".jsonl", ".ndjson", ".sse.txt"} }

// Inputs expands the arguments of evcap census: a directory becomes the
// regular files under it whose names end in one of Extensions, in lexical
// order; anything else, "-" included, is taken as a file, so that opening
// it reports its own error. A directory with no such file is an error, as
// a census that counted nothing there would hide a wrong path.
func Inputs(args []string) ([]Input, error) {
	exts := Extensions()
	var out []Input
	for _, a := range args {
		st, err := os.Stat(a)
		if a == "-" || err != nil || !st.IsDir() {
			out = append(out, Input{Name: a})
			continue
		}
		n := len(out)
		err = filepath.WalkDir(a, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.Type().IsRegular() && slices.ContainsFunc(exts, func(x string) bool { return strings.HasSuffix(d.Name(), x) }) {
				out = append(out, Input{Name: p, InTree: true})
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("search %s: %w", a, err)
		}
		if len(out) == n {
			return nil, fmt.Errorf("%s: no %s files in this directory tree", a, strings.Join(exts, ", "))
		}
	}
	return out, nil
}
