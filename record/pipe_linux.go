package record

import (
	"io"
	"os"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// pipeReader reads a pipe whose descriptor is non-blocking (os.Pipe's,
// registered with Go's poller) with a raw read(2). Such a read cannot
// block, so it needs none of the scheduler's bookkeeping for system calls,
// which on a child that writes a line at a time costs more than the read:
// entering a system call wakes the runtime's monitor thread when the
// process was idle, i.e. once per line. When the pipe is empty the poller
// waits for it exactly as (*os.File).Read does, read deadlines included.
type pipeReader struct {
	f  *os.File
	rc syscall.RawConn
	// The arguments and results of the read in progress, fields so that
	// fill (bound once) does not allocate a closure per read.
	buf   []byte
	n     int
	errno syscall.Errno
	fill  func(fd uintptr) bool
}

// newPipeReader returns f itself when its descriptor blocks (a raw read
// would then hold a scheduler thread) or cannot be inspected.
func newPipeReader(f *os.File) io.Reader {
	rc, err := f.SyscallConn()
	if err != nil {
		return f
	}
	nonblock := false
	if rc.Control(func(fd uintptr) {
		fl, err := unix.FcntlInt(fd, unix.F_GETFL, 0)
		nonblock = err == nil && fl&unix.O_NONBLOCK != 0
	}) != nil || !nonblock {
		return f
	}
	p := &pipeReader{f: f, rc: rc}
	p.fill = p.read
	return p
}

// read is one read(2) of the descriptor; false asks the poller to wait
// until it is readable.
func (p *pipeReader) read(fd uintptr) bool {
	for {
		r, _, e := syscall.RawSyscall(syscall.SYS_READ, fd, uintptr(unsafe.Pointer(&p.buf[0])), uintptr(len(p.buf)))
		switch e {
		case 0:
			p.n = int(r)
			return true
		case syscall.EINTR:
			continue
		case syscall.EAGAIN:
			return false
		}
		p.errno = e
		return true
	}
}

func (p *pipeReader) Read(b []byte) (int, error) {
	if len(b) == 0 {
		return 0, nil
	}
	p.buf, p.n, p.errno = b, 0, 0
	err := p.rc.Read(p.fill)
	n, errno := p.n, p.errno
	p.buf = nil
	switch {
	case err != nil:
		return 0, err
	case errno != 0:
		return 0, &os.PathError{Op: "read", Path: p.f.Name(), Err: errno}
	case n == 0:
		return 0, io.EOF
	}
	return n, nil
}
