package main

import (
	"context"
	"io"
	"os"

	"github.com/evcap/evcap/source"
)

// The input openers of the commands that cannot read through source.Open
// (it gives a plain reader): sanitize seeks in a regular file to learn the
// project root first, yet must read a pipe or FIFO once. What source
// should offer instead is in the wave-16 report (an Open that keeps the
// file's Seek and says whether the input can be read twice).

// openOnceOrSeekable opens the input of a command that reads a regular
// file twice when it can: "-" is standard input and a FIFO is read once,
// as a plain reader without Seek (so the library reads it once); anything
// else must be a regular file (openCaptureFile) and keeps its Seek. A
// FIFO's blocked read ends when ctx is done.
func openOnceOrSeekable(ctx context.Context, s streams, name string) (io.Reader, func(), error) {
	if name == "-" {
		if f, ok := s.in.(*os.File); ok && f != nil {
			r, release := source.Interruptible(ctx, f)
			return struct{ io.Reader }{r}, release, nil
		}
		return s.in, func() {}, nil
	}
	if fi, err := os.Stat(name); err == nil && fi.Mode()&os.ModeNamedPipe != 0 {
		f, err := os.Open(name)
		if err != nil {
			return nil, nil, err
		}
		r, release := source.Interruptible(ctx, f)
		return struct{ io.Reader }{r}, func() { release(); f.Close() }, nil
	}
	f, err := openCaptureFile(name)
	if err != nil {
		return nil, nil, err
	}
	return f, func() { f.Close() }, nil
}
