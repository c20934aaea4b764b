package harness

import (
	"os/exec"
	"syscall"

	"golang.org/x/sys/unix"
)

// sysProcAttr starts the harness in its own process group with SIGKILL as
// its parent-death signal (PROC-9).
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// waitGroup waits for the leader to exit without reaping it (waitid
// WNOWAIT): as a zombie it keeps its pid, so the group id it leads cannot
// be reused while end kills what is left in the group; then it reaps it.
func waitGroup(cmd *exec.Cmd, end func()) error {
	var info unix.Siginfo
	for {
		err := unix.Waitid(unix.P_PID, cmd.Process.Pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if err != unix.EINTR {
			break
		}
	}
	end()
	return cmd.Wait()
}
