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

// pipeWriter writes to a pipe or a socket (evcap's stdout under an
// integration that reads --passthrough: a shell pipe, or the socket pair
// Node gives a child) with a raw write(2) when poll(2) says a write of
// pipeAtom bytes cannot block, for the reason pipeReader reads raw: a
// system call made through the scheduler wakes its monitor thread when
// the process was idle, which on a child that writes a line at a time is
// once per line and costs more than the write (three context switches).
// Anything poll does not clear, or a write the kernel takes in part, goes
// through w as before, which may block as a write does.
//
// The poll and the write are two calls: another process writing into the
// same pipe between them could fill it, and the raw write would then
// block its thread without the scheduler knowing, until the reader makes
// room. evcap is the only writer of its stdout in the set-ups it serves.
type pipeWriter struct {
	w  *os.File
	rc syscall.RawConn
	// The bytes of the write in progress and how many went out raw,
	// fields so that fill (bound once) does not allocate a closure.
	b    []byte
	done int
	fill func(fd uintptr)
	// raw counts the bytes written raw (for the tests).
	raw int64
}

// pipeAtom is the most a raw write carries: POSIX's PIPE_BUF, which a
// pipe that polls writable takes whole and at once; a Unix socket that
// polls writable has a quarter of its send buffer or more free.
const pipeAtom = 4096

// newPipeWriter returns w itself unless it is an *os.File on a pipe or a
// socket. The descriptor is reached through SyscallConn, not Fd, which
// would switch a non-blocking descriptor (an os.Pipe's) to blocking.
func newPipeWriter(w io.Writer) io.Writer {
	f, ok := w.(*os.File)
	if !ok || f == nil {
		return w
	}
	rc, err := f.SyscallConn()
	if err != nil {
		return w
	}
	pipe := false
	if rc.Control(func(fd uintptr) {
		var st unix.Stat_t
		if unix.Fstat(int(fd), &st) == nil {
			m := st.Mode & unix.S_IFMT
			pipe = m == unix.S_IFIFO || m == unix.S_IFSOCK
		}
	}) != nil || !pipe {
		return w
	}
	p := &pipeWriter{w: f, rc: rc}
	p.fill = p.writeRaw
	return p
}

// writeRaw writes p.b from p.done on, pipeAtom bytes at a time, for as
// long as the descriptor polls writable.
func (p *pipeWriter) writeRaw(fd uintptr) {
	for p.done < len(p.b) {
		fds := [1]unix.PollFd{{Fd: int32(fd), Events: unix.POLLOUT}}
		r, _, e := syscall.RawSyscall(syscall.SYS_POLL, uintptr(unsafe.Pointer(&fds[0])), 1, 0)
		if e != 0 || r != 1 || fds[0].Revents&unix.POLLOUT == 0 || fds[0].Revents&(unix.POLLERR|unix.POLLHUP|unix.POLLNVAL) != 0 {
			return
		}
		n := min(len(p.b)-p.done, pipeAtom)
		w, _, e := syscall.RawSyscall(syscall.SYS_WRITE, fd, uintptr(unsafe.Pointer(&p.b[p.done])), uintptr(n))
		if e != 0 || int(w) <= 0 {
			return
		}
		p.done += int(w)
		p.raw += int64(w)
		if int(w) < n {
			return
		}
	}
}

func (p *pipeWriter) Write(b []byte) (int, error) {
	p.b, p.done = b, 0
	// Control holds the descriptor open for the call (a closed File
	// fails it, and the write below reports that).
	_ = p.rc.Control(p.fill)
	done := p.done
	p.b = nil
	if done == len(b) {
		return done, nil
	}
	n, err := p.w.Write(b[done:])
	return done + n, err
}
