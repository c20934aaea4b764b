//go:build murtest

package session

import "github.com/murmur-go/mur/runtime/diag"

// startFault is a test build's hidden knob (process.md PTEST-4's kind):
// with StartFaultEnv=after_tools, Start fails as a full disk would, right
// after the tools are built, so a test can watch that failure end in order.
func startFault(getenv func(string) string, dir string) error {
	if getenv != nil && getenv(StartFaultEnv) == "after_tools" {
		return diag.IOError(dir, "no space left on device")
	}
	return nil
}
