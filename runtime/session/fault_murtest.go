//go:build murtest

package session

import (
	"errors"

	"github.com/murmur-go/mur/runtime/diag"
)

// startFault is a test build's hidden knob (process.md PTEST-4's kind):
// with StartFaultEnv=after_tools, Start fails as a full disk would, right
// after the tools are built, so a test can watch that failure end in order.
func startFault(getenv func(string) string, dir string) error {
	if getenv != nil && getenv(StartFaultEnv) == "after_tools" {
		return diag.IOError(dir, "no space left on device")
	}
	return nil
}

// faultAt is the knob's other points: with StartFaultEnv=point, the start
// step named point ("bridge", "task_table", "launch_task") fails as if its
// library had, so a test can watch that failure reach the user coded.
func faultAt(getenv func(string) string, point string) error {
	if getenv != nil && getenv(StartFaultEnv) == point {
		return errors.New("injected fault")
	}
	return nil
}
