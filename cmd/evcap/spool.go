package main

import (
	"fmt"
	"io"
	"os"
)

// spoolStdin copies standard input to a temporary file for a command that
// must read its input more than once (promote sanitizes, then loads), and
// returns the file's path; the caller removes it.
func spoolStdin(in io.Reader) (string, error) {
	f, err := os.CreateTemp("", "evcap-stdin-*.jsonl")
	if err != nil {
		return "", fmt.Errorf("copy standard input: %w", err)
	}
	_, err = io.Copy(f, in)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(f.Name())
		return "", fmt.Errorf("copy standard input to %s: %w", f.Name(), err)
	}
	return f.Name(), nil
}
