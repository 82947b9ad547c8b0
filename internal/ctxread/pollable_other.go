//go:build !linux

package ctxread

import "os"

// Pollable is f itself where a descriptor cannot be opened again
// through /proc (see pollable_linux.go): a read blocked on a quiet pipe is
// left behind at SIGINT.
func Pollable(f *os.File) (*os.File, func() error) {
	return f, func() error { return nil }
}
