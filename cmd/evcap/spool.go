package main

import (
	"context"
	"io"

	"github.com/evcap/evcap/replayrun"
)

// spoolOnce gives a command that must read its input more than once
// (promote sanitizes, then loads) a regular file to read: standard input
// (arg "-") and a named pipe are read once into a temporary copy
// (replayrun.Spool), whose path it returns with a function that removes
// it; any other argument comes back as it is, with a no-op.
func spoolOnce(ctx context.Context, stdin io.Reader, arg string) (string, func(), error) {
	return replayrun.Spool(ctx, stdin, arg, tempFiles())
}

// tempFiles makes the temporary files of a library through createTemp,
// so that main removes them too if a signal cuts the run short.
func tempFiles() replayrun.TempFiles {
	return replayrun.TempFiles{Create: createTemp, Removed: forgetTemp}
}
