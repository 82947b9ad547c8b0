//go:build unix

package record

import (
	"fmt"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// forwardSignal sends sig to the child p, or with group to the process
// group it leads (to p alone if the group is gone), and returns what it
// did, for capture.end's notes.
func forwardSignal(p *os.Process, sig syscall.Signal, group bool) (note string) {
	if !group {
		syscall.Kill(p.Pid, sig)
		return fmt.Sprintf("evcap passed %s on to the agent", unix.SignalName(sig))
	}
	if err := syscall.Kill(-p.Pid, sig); err != nil {
		syscall.Kill(p.Pid, sig)
	}
	return fmt.Sprintf("evcap sent %s to the agent's process group", unix.SignalName(sig))
}

// signalName is sig's name as capture.end records it ("SIGINT").
func signalName(sig syscall.Signal) string { return unix.SignalName(sig) }
