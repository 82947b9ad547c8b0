package record

import "syscall"

// childAttr puts the child in its own process group (so a terminal's ^C
// reaches evcap, which forwards it) and has the kernel kill it if evcap
// dies, so a kill -9 of evcap leaves no orphaned agent behind.
func childAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
