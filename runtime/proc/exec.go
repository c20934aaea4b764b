package proc

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/murmur-go/mur/runtime/supervisor"
)

// LookPath finds bin on the PATH of env (a subprocess environment), not the
// runtime's own; the error's text is SHELL-3's <why>.
func LookPath(bin string, env []string) (string, error) {
	if strings.Contains(bin, "/") {
		return "", fmt.Errorf("%s names a path, not a binary on PATH", bin)
	}
	pathVar := ""
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			pathVar = v
		}
	}
	for _, dir := range filepath.SplitList(pathVar) {
		if dir == "" {
			dir = "."
		}
		p := filepath.Join(dir, bin)
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s was not found on PATH", bin)
}

// ExitCode is a finished process's code: 128 + signal when a signal killed
// it, -1 when it never finished.
func ExitCode(ps *os.ProcessState) int { return supervisor.ExitOf(ps).ShellCode() }

// StartErrText is the reason a command could not start, without the path
// os/exec puts in front of it.
func StartErrText(err error) string {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// Unstartable is SHELL-3's text for a command that could not be started; a
// shell tool refuses with it and a plan's shell step fails with it.
func Unstartable(bin, why string) string {
	return fmt.Sprintf("'%s' could not be started: %s", bin, why)
}

// KillGroup sends sig to the process group pgid leads (a command started
// with SysProcAttr): the command and everything it started.
func KillGroup(pgid int, sig syscall.Signal) { _ = syscall.Kill(-pgid, sig) }
