//go:build unix

package record

import (
	"os"
	"syscall"
)

// replaceOutput replaces a large existing capture at path by a new file
// of the same mode: it opens the old file, removes its name, creates the
// new one, and closes the old descriptor in a goroutine, so the kernel
// frees the old capture there, in parallel with the recording, when its
// last reference goes. ok is false, and nothing has changed, unless path
// is a regular file (not a symlink, whose target O_TRUNC would truncate)
// of at least replaceMin bytes with no other hard link (which O_TRUNC
// would empty too) and owned by this user (so the new file keeps the
// owner); the caller then truncates it.
func replaceOutput(path string) (f *os.File, done <-chan struct{}, ok bool) {
	st, err := os.Lstat(path)
	if err != nil || !st.Mode().IsRegular() || st.Size() < replaceMin {
		return nil, nil, false
	}
	sys, _ := st.Sys().(*syscall.Stat_t)
	if sys == nil || sys.Nlink != 1 || int(sys.Uid) != os.Getuid() {
		return nil, nil, false
	}
	old, err := os.Open(path)
	if err != nil {
		return nil, nil, false
	}
	if os.SameFile(st, statOf(old)) && os.Remove(path) == nil {
		perm := st.Mode().Perm()
		f, err = os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, perm)
		if err == nil {
			_ = f.Chmod(perm) // the mode O_TRUNC would have kept, past the umask
			ch := make(chan struct{})
			go func() {
				defer close(ch)
				old.Close()
			}()
			return f, ch, true
		}
		// Something else took the path in between: the caller's O_TRUNC
		// opens whatever is there now.
	}
	old.Close()
	return nil, nil, false
}

// statOf is f's FileInfo, nil when it cannot be had.
func statOf(f *os.File) os.FileInfo {
	st, err := f.Stat()
	if err != nil {
		return nil
	}
	return st
}
