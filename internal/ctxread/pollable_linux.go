//go:build linux

package ctxread

import (
	"os"
	"strconv"
	"syscall"
	"time"
)

// Pollable returns a file that reads what f (standard input, or a file a
// caller opened) reads and whose reads a context can cut short, with what
// closes it. Go reads
// a blocking descriptor (a shell's pipe, a terminal) with a plain read(2)
// that no deadline reaches, so a command waiting on a quiet pipe could
// only be left behind at SIGINT. For a pipe, a FIFO or a terminal the
// same object is opened again through /proc/self/fd: a new open file
// description, made non-blocking and handed to the poller, while f's own
// description (which the shell and the process writing into evcap share)
// stays as it was. Anything else (a regular file, whose offset is shared
// and whose reads do not block; a socket, which cannot be opened again)
// is f itself.
func Pollable(f *os.File) (*os.File, func() error) {
	none := func() error { return nil }
	if f.SetReadDeadline(time.Time{}) == nil {
		return f, none // the poller has it already
	}
	st, err := f.Stat()
	if err != nil {
		return f, none
	}
	m := st.Mode()
	if m&os.ModeNamedPipe == 0 && m&os.ModeCharDevice == 0 {
		return f, none
	}
	fd, err := syscall.Open("/proc/self/fd/"+strconv.Itoa(int(f.Fd())), syscall.O_RDONLY|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	if err != nil {
		return f, none
	}
	nf := os.NewFile(uintptr(fd), f.Name())
	if nf.SetReadDeadline(time.Time{}) != nil {
		nf.Close()
		return f, none
	}
	return nf, nf.Close
}
