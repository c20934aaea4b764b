package e2e

import (
	"os/exec"
	"syscall"
)

// dieWithTest makes the kernel kill cmd when the test binary's thread that
// started it ends (as chromedp's own default does on Linux), so no browser
// outlives a test binary that is killed.
func dieWithTest(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
