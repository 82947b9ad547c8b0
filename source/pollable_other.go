//go:build !linux

package source

import "os"

// pollable is f itself where a descriptor cannot be opened again
// through /proc (see stdin_linux.go): a read blocked on a quiet pipe is
// left behind at SIGINT.
func pollable(f *os.File) (*os.File, func() error) {
	return f, func() error { return nil }
}
