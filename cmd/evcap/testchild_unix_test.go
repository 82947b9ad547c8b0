//go:build unix

package main

import (
	"syscall"

	"golang.org/x/sys/unix"
)

// childSignalName is how evcap-testchild's trap names a signal ("SIGTERM").
func childSignalName(s syscall.Signal) string { return unix.SignalName(s) }
