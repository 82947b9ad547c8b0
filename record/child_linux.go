package record

import "syscall"

// childAttr puts the child in its own process group (so a terminal's ^C
// reaches evcap, which forwards it) and has the kernel kill it if evcap
// dies, so a kill -9 of evcap leaves no orphaned agent behind.
// With sameGroup (Options.Transparent) the child stays in evcap's group.
func childAttr(sameGroup bool) *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: !sameGroup, Pdeathsig: syscall.SIGKILL}
}
