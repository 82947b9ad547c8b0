package replayrun

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/evcap/evcap/fixtures"
)

// input is one thing to replay: a fixture (goldDir set) or a capture.
type input struct {
	path    string
	fx      *fixtures.Fixture // nil for a capture streamed from file
	goldDir string
	file    string // capture file, for the streaming path and timestamps
	// name is what messages call the capture file: its path, or "stdin"
	// (or the named pipe) for a copy spooled from one.
	name string
}

// fileName is what messages call in's capture file.
func (in input) fileName() string {
	if in.name != "" {
		return in.name
	}
	return in.file
}

// expand turns a path into inputs: a fixture directory or its
// fixture.json, every fixture under a directory, a capture file, or a
// capture on o.Stdin ("-").
//
// A copy it makes of standard input or a named pipe is removed by the
// functions it appends to cleanup.
func expand(ctx context.Context, path string, o Options, cleanup *[]func()) ([]input, error) {
	if path == "-" {
		// Standard input is read once into a temporary copy (removed by
		// the caller), which every check then streams like a file.
		if o.Stdin == nil {
			return nil, errors.New("-: no standard input to read (Options.Stdin is nil)")
		}
		tmp, remove, err := Spool(ctx, o.Stdin, path, o.Temp)
		if err != nil {
			return nil, err
		}
		*cleanup = append(*cleanup, remove)
		return []input{{path: "-", file: tmp, name: "stdin"}}, nil
	}
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !st.IsDir() && !st.Mode().IsRegular() {
		// A named pipe can be read only once: it is copied once, as
		// standard input is, and every check reads the copy.
		if st.Mode()&os.ModeNamedPipe == 0 {
			return nil, fmt.Errorf("%s is a %v, not a capture file", path, st.Mode().Type())
		}
		tmp, remove, err := Spool(ctx, o.Stdin, path, o.Temp)
		if err != nil {
			return nil, err
		}
		*cleanup = append(*cleanup, remove)
		return []input{{path: path, file: tmp, name: path}}, nil
	}
	if !st.IsDir() && filepath.Base(path) == fixtures.FileName {
		path, st = filepath.Dir(path), nil
	}
	if st == nil || st.IsDir() {
		if _, err := os.Stat(filepath.Join(path, fixtures.FileName)); err == nil {
			fx, err := fixtures.Load(os.DirFS(path), ".")
			if err != nil {
				return nil, err
			}
			return []input{{path: path, fx: fx, goldDir: filepath.Join(path, fixtures.GoldenDir)}}, nil
		}
		var out []input
		err := fixtures.Walk(os.DirFS(path), ".", func(dir string, fx *fixtures.Fixture) error {
			p := filepath.Join(path, filepath.FromSlash(dir))
			out = append(out, input{path: p, fx: fx, goldDir: filepath.Join(p, fixtures.GoldenDir)})
			return nil
		})
		if err != nil {
			return nil, err
		}
		if len(out) == 0 {
			return nil, fmt.Errorf("%s: no fixtures under it (no %s)", path, fixtures.FileName)
		}
		return out, nil
	}
	return []input{{path: path, file: path}}, nil
}
