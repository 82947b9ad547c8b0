//go:build !linux

package record

import (
	"io"
	"os"
)

// newPipeReader reads f as it is (see pipe_linux.go for why Linux differs).
func newPipeReader(f *os.File) io.Reader { return f }

// newPipeWriter writes to w as it is (see pipe_linux.go for why Linux
// differs).
func newPipeWriter(w io.Writer) io.Writer { return w }
