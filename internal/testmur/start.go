package testmur

import (
	"bytes"
	"os/exec"
)

// Start starts cmd (any command a test runs, above all the real mur) so that
// it does not outlive the test binary: on Linux the kernel sends it SIGTERM
// when the test binary dies, however it dies (a failed test's hang ended by
// go test -timeout, a SIGKILL). SIGTERM, not SIGKILL, because a mur's
// SIGTERM is its orderly end, the one that reaches everything it started: a
// session ends its tools' process groups, a launcher ends its members. A
// command that sets SysProcAttr.Pdeathsig keeps its own. Elsewhere Start is
// cmd.Start and the test's cleanups are all there is.
//
// Every command of a test goes through Start (or Exec, Combined, StartFake),
// never through cmd.Start, Run, Output or CombinedOutput: the arch test
// TestCommandsDieWithTheTest holds every _test.go file to it.
func Start(cmd *exec.Cmd) error { return start(cmd, sigTerm) }

// StartFake is Start for a stand-in (sleep, sh -c) that has no orderly end
// to run, or that a test makes deaf to SIGTERM: the kernel sends it SIGKILL.
func StartFake(cmd *exec.Cmd) error { return start(cmd, sigKill) }

// Combined is cmd.CombinedOutput, the command started by Start.
func Combined(cmd *exec.Cmd) ([]byte, error) {
	var b bytes.Buffer
	cmd.Stdout, cmd.Stderr = &b, &b
	if err := Start(cmd); err != nil {
		return nil, err
	}
	err := cmd.Wait()
	return b.Bytes(), err
}

// RunCmd is cmd.Run, the command started by Start.
func RunCmd(cmd *exec.Cmd) error {
	if err := Start(cmd); err != nil {
		return err
	}
	return cmd.Wait()
}
