package record

import "os"

// openOutput opens the -o capture file to be written from its start, a
// new file or one that replaces what the path held. The file an existing
// capture is replaced in is chosen by replaceOutput (outfile_unix.go):
// where it can, the old capture's name is removed and its memory given
// back by a goroutine of its own (done is closed when that is over), so
// that the agent does not wait for it to start; elsewhere the old file is
// truncated, as O_TRUNC does.
func openOutput(path string) (f *os.File, done <-chan struct{}, err error) {
	if f, done, ok := replaceOutput(path); ok {
		return f, done, nil
	}
	f, err = os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	return f, nil, err
}

// replaceMin is the size from which an existing capture is let go in the
// background rather than truncated. Truncating a capture the bench had
// just written (170 MB) took 107 ms on its 2-core machine, as the kernel
// drops the file's cached pages and frees its blocks, all before the
// agent was started; a capture of gigabytes would hold it back for
// seconds. A small file truncates in no time and keeps its inode.
const replaceMin = 1 << 20
