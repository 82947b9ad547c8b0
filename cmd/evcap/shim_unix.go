//go:build unix

package main

import (
	"os"
	"os/signal"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// shimSignals are the signals a shim stand-in passes on to the CLI it
// runs.
func shimSignals() []os.Signal {
	return []os.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT, syscall.SIGUSR1, syscall.SIGUSR2}
}

// dieBy ends evcap by the signal named name ("SIGTERM"), as the CLI it
// stood in for ended, so that its parent sees the same wait status. It
// returns if name is no signal or the signal did not kill evcap.
func dieBy(name string) {
	if sig := unix.SignalNum(name); sig != 0 {
		signal.Reset(sig)
		syscall.Kill(os.Getpid(), sig)
		time.Sleep(100 * time.Millisecond)
	}
}
