package harness

import (
	"bytes"
	"context"
	"errors"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"github.com/murmur-go/mur/runtime/diag"
	"github.com/murmur-go/mur/runtime/proc"
)

// Version is what the version probe read (PROC-10).
type Version struct {
	// Line is the first line printed, trimmed; "" when none was read.
	Line string
	// Tested reports whether Line holds the dialect's tested version.
	Tested bool
	// Warning is W-RUN-002, nil when the version is the tested one.
	Warning *diag.Diagnostic
}

// Probe runs `<binary> --version` once (PROC-10): the harness environment,
// cwd dir, empty stdin, at most timeout (ProbeTimeout), started through sb
// (nil: unconfined) as every run is. Nothing is refused: a version other
// than the dialect's tested one, or none, is a warning.
func (d Dialect) Probe(ctx context.Context, binary string, env []string, dir string, timeout time.Duration, sb *proc.Sandbox) Version {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, "--version")
	cmd.Env, cmd.Dir = env, dir
	cmd.SysProcAttr = sysProcAttr()
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = time.Second
	var out bytes.Buffer
	cmd.Stdout = &out
	err := sb.Start(cmd)
	if err == nil {
		err = cmd.Wait()
	}
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // anything it left behind
	}
	unread := func(why string) Version {
		return Version{Warning: diag.RunHarnessVersionUnread(d.Tested, why)}
	}
	var ee *exec.ExitError
	switch {
	case ctx.Err() != nil:
		return unread("it did not answer within " + timeout.String())
	case errors.As(err, &ee):
		return unread("it exited non-zero")
	case err != nil:
		return unread("it could not be run: " + err.Error())
	}
	line, _, _ := strings.Cut(out.String(), "\n")
	line = strings.TrimSpace(line)
	if line == "" {
		return unread("it printed nothing")
	}
	v := Version{Line: line, Tested: versionOf(line) == d.Tested}
	if !v.Tested {
		v.Warning = diag.RunHarnessVersion(line, d.Key, d.Tested)
	}
	return v
}

// versionOf is the version in a version line: claude prints "2.1.328
// (Claude Code)", codex "codex-cli 0.169.0" — the first word holding a
// digit.
func versionOf(line string) string {
	for _, w := range strings.Fields(line) {
		if strings.ContainsAny(w, "0123456789") {
			return w
		}
	}
	return ""
}
