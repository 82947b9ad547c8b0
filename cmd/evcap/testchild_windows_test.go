package main

import (
	"fmt"
	"syscall"
)

// childSignalName is how evcap-testchild's trap names a signal ("SIGTERM"):
// Go on Windows reports a console's Ctrl+C or Ctrl+Break as SIGINT and its
// close, logoff or shutdown as SIGTERM.
func childSignalName(s syscall.Signal) string {
	switch s {
	case syscall.SIGINT:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	case syscall.SIGHUP:
		return "SIGHUP"
	}
	return fmt.Sprintf("signal %d", int(s))
}
