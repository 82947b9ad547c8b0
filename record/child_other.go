//go:build unix && !linux

package record

import "syscall"

// childAttr puts the child in its own process group, so a terminal's ^C
// reaches evcap, which forwards it. (Only Linux can also tie the child's
// life to evcap's.)
// With sameGroup (Options.Transparent) the child stays in evcap's group.
func childAttr(sameGroup bool) *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: !sameGroup}
}
