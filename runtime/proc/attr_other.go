//go:build !linux

package proc

import "syscall"

// SysProcAttr is how the runtime starts every subprocess a tool or check
// runs: in its own process group, so a cancel or a stop reaches the command
// and everything it started (LOOP-11, BG-1). There is no parent-death signal
// outside Linux: a session killed outright (SIGKILL) leaves its children to
// be ended by whoever kills it; every orderly end still kills the group.
func SysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}

// Undumpable: outside Linux there is nothing to mark.
func Undumpable() {}
