//go:build !linux

package testmur

import (
	"os/exec"
	"syscall"
)

const (
	sigTerm = syscall.SIGTERM
	sigKill = syscall.SIGKILL
)

// start has no parent-death signal to set outside Linux: the command is
// started as it is, and the test's cleanups end it.
func start(cmd *exec.Cmd, _ syscall.Signal) error { return cmd.Start() }
