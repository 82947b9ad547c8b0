package export

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// CaptureFileSuffix is the name ending of capture files a tree walk picks
// up; a directory holding a fixture.json is a fixture and is taken whole.
const CaptureFileSuffix = ".jsonl"

// Walk finds the captures under each path and calls fn for each, from at
// most workers goroutines at once (1 when workers < 1). "-" (standard
// input) is handed on as it is. A path that is a
// file is taken as it is, whatever its name; a directory is walked: files
// ending in CaptureFileSuffix and fixture directories (their fixture.json)
// are captures. Names are produced as the walk finds them and handed over
// through an unbuffered channel, so memory does not grow with the size of
// the tree. fn's errors do not stop the walk (each capture stands alone);
// Walk returns the first error of the walk itself, or ctx's.
func Walk(ctx context.Context, paths []string, workers int, fn func(ctx context.Context, path string)) error {
	if workers < 1 {
		workers = 1
	}
	names := make(chan string)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for name := range names {
				fn(ctx, name)
			}
		}()
	}
	walkErr := func() error {
		defer close(names)
		send := func(name string) error {
			select {
			case names <- name:
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		for _, root := range paths {
			if root == "-" { // standard input: the caller's opener reads it
				if err := send(root); err != nil {
					return err
				}
				continue
			}
			st, err := os.Stat(root)
			if err != nil {
				return err
			}
			if !st.IsDir() {
				if err := send(root); err != nil {
					return err
				}
				continue
			}
			err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
				if err != nil {
					return err
				}
				if d.IsDir() {
					if _, err := os.Stat(filepath.Join(p, "fixture.json")); err == nil {
						if err := send(p); err != nil {
							return err
						}
						return fs.SkipDir
					}
					return nil
				}
				if d.Type().IsRegular() && strings.HasSuffix(d.Name(), CaptureFileSuffix) {
					return send(p)
				}
				return nil
			})
			if err != nil {
				return err
			}
		}
		return nil
	}()
	wg.Wait()
	if walkErr == nil {
		walkErr = ctx.Err()
	}
	if errors.Is(walkErr, fs.SkipDir) {
		walkErr = nil
	}
	return walkErr
}
