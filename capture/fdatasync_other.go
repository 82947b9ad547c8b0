//go:build !linux

package capture

import "os"

// fdatasync is f.Sync where there is no fdatasync.
func fdatasync(f *os.File) error { return f.Sync() }
