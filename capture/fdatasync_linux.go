package capture

import (
	"os"

	"golang.org/x/sys/unix"
)

// fdatasync writes f's data (and the metadata needed to read it back) to
// disk; cheaper than fsync, and all a background sync needs.
func fdatasync(f *os.File) error { return unix.Fdatasync(int(f.Fd())) }
