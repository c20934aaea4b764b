package proc

import "syscall"

// SysProcAttr is how the runtime starts every subprocess a tool or check
// runs: in its own process group, so a cancel or a stop reaches the command
// and everything it started (LOOP-11, BG-1); and, on Linux, with SIGKILL as
// its parent-death signal, so a session killed outright (SIGKILL, OOM) takes
// its direct children with it instead of leaving them running.
func SysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
