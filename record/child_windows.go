package record

import (
	"fmt"
	"os"
	"syscall"

	"golang.org/x/sys/windows"
)

// childAttr starts the child as the root of a new console process group,
// so that evcap can send a Ctrl+Break to it and what it starts, and to
// nothing else on the console. Windows disables Ctrl+C in such a group,
// so a console's Ctrl+C reaches evcap alone, which forwards it (see
// forwardSignal). Unlike Linux, nothing ties the child's life to evcap's.
// With sameGroup (Options.Transparent) the child stays in evcap's group,
// where the console's Ctrl+C and Ctrl+Break reach it directly.
func childAttr(sameGroup bool) *syscall.SysProcAttr {
	if sameGroup {
		return nil
	}
	return &syscall.SysProcAttr{CreationFlags: syscall.CREATE_NEW_PROCESS_GROUP}
}

// forwardSignal stops the child p the way Windows can, and returns what it
// did, for capture.end's notes. Windows cannot send a signal to a process,
// and a Ctrl+C cannot be aimed at one process group, so:
//
//   - SIGKILL (what a second interrupt becomes) terminates p with
//     Process.Kill (TerminateProcess: exit status 1, no chance to clean
//     up). The processes p started are not terminated with it.
//   - Any other signal (the first interrupt; a console's close, logoff or
//     shutdown, which Go reports as SIGTERM) sends CTRL_BREAK_EVENT to p's
//     process group (group): a console program's default handler exits
//     (status 0xC000013A), a Go program sees os.Interrupt, Node.js SIGBREAK.
//     If the event cannot be sent (evcap has no console, as under an IDE
//     that started it without one), p is terminated as for SIGKILL.
//   - Without group (Options.Transparent) p shares evcap's console and
//     process group, so a console event that reached evcap reached p as
//     well; sending one would reach every process on the console, evcap
//     and its parent included. Only SIGKILL is acted on (p is terminated);
//     any other signal is not sent again, and the note says so.
func forwardSignal(p *os.Process, sig syscall.Signal, group bool) (note string) {
	if sig == syscall.SIGKILL {
		if err := p.Kill(); err != nil {
			return fmt.Sprintf("evcap could not terminate the agent after %s: %v", signalName(sig), err)
		}
		return fmt.Sprintf("evcap terminated the agent (TerminateProcess) for %s", signalName(sig))
	}
	if !group {
		return fmt.Sprintf("evcap did not pass %s on: the agent shares evcap's console and got its event too", signalName(sig))
	}
	err := windows.GenerateConsoleCtrlEvent(windows.CTRL_BREAK_EVENT, uint32(p.Pid))
	if err == nil {
		return fmt.Sprintf("evcap sent CTRL_BREAK_EVENT to the agent's process group for %s", signalName(sig))
	}
	if kerr := p.Kill(); kerr != nil {
		return fmt.Sprintf("evcap could not send CTRL_BREAK_EVENT to the agent for %s (%v) nor terminate it: %v", signalName(sig), err, kerr)
	}
	return fmt.Sprintf("evcap terminated the agent (TerminateProcess) for %s: it could not send CTRL_BREAK_EVENT (%v)", signalName(sig), err)
}

// signalName is sig's name as capture.end records it ("SIGINT"). A
// Windows exit status never names a signal; this names the ones Go
// reports (os.Interrupt, SIGTERM) or a caller of Command may send.
func signalName(sig syscall.Signal) string {
	switch sig {
	case syscall.SIGHUP:
		return "SIGHUP"
	case syscall.SIGINT:
		return "SIGINT"
	case syscall.SIGQUIT:
		return "SIGQUIT"
	case syscall.SIGKILL:
		return "SIGKILL"
	case syscall.SIGTERM:
		return "SIGTERM"
	}
	return fmt.Sprintf("signal %d", int(sig))
}
