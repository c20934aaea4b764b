//go:build !linux

package e2e

import "os/exec"

// dieWithTest has no portable form: elsewhere the browser is ended when its
// context is cancelled, at the test's cleanup.
func dieWithTest(cmd *exec.Cmd) {}
