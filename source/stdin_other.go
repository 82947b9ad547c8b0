//go:build !linux

package source

import "os"

// pollableStdin is f itself where a descriptor cannot be opened again
// through /proc (see stdin_linux.go): a read blocked on a quiet pipe is
// left behind at SIGINT.
func pollableStdin(f *os.File) (*os.File, func() error) {
	return f, func() error { return nil }
}
