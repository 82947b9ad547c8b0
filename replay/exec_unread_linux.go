package replay

import (
	"os"
	"syscall"
	"unsafe"
)

// unread returns how many bytes written to the pipe w the reader has not
// read yet (FIONREAD works on either end of a Linux pipe), and false when
// it cannot tell.
func unread(w *os.File) (int, bool) {
	rc, err := w.SyscallConn()
	if err != nil {
		return 0, false
	}
	var n int32
	var errno syscall.Errno
	if err := rc.Control(func(fd uintptr) {
		_, _, errno = syscall.Syscall(syscall.SYS_IOCTL, fd, syscall.TIOCINQ, uintptr(unsafe.Pointer(&n)))
	}); err != nil || errno != 0 {
		return 0, false
	}
	return int(n), true
}
