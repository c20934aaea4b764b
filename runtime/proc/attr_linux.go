package proc

import (
	"syscall"

	"golang.org/x/sys/unix"
)

// SysProcAttr is how the runtime starts every subprocess a tool or check
// runs: in its own process group, so a cancel or a stop reaches the command
// and everything it started (LOOP-11, BG-1); and, on Linux, with SIGKILL as
// its parent-death signal, so a session killed outright (SIGKILL, OOM) takes
// its direct children with it instead of leaving them running.
func SysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// Undumpable marks this process non-dumpable (PR_SET_DUMPABLE 0): its
// /proc/<pid>/environ, mem, fds and maps, process_vm_* and ptrace are then
// refused to every process without CAP_SYS_PTRACE, which no confined
// command has, whatever Landlock domain it is in; the exec of a tool's
// command makes that process dumpable again. Every mur process calls it
// first thing.
func Undumpable() { _ = unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0) }
