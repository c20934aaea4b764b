//go:build !linux

package harness

import (
	"os/exec"
	"syscall"
)

// sysProcAttr starts the harness in its own process group (PROC-9); other
// systems have no parent-death signal.
func sysProcAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }

// waitGroup reaps the leader, then has end kill what is left in its group.
// Without waitid's WNOWAIT the group id is free between the two; a reuse
// in that instant is the accepted risk of these platforms.
func waitGroup(cmd *exec.Cmd, end func()) error {
	err := cmd.Wait()
	end()
	return err
}
