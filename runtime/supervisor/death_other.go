//go:build !linux

package supervisor

import "syscall"

// setParentDeath does nothing: this system has no parent-death signal.
func setParentDeath(*syscall.SysProcAttr) {}
