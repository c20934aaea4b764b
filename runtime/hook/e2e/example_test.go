package e2e

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"regexp"
	"syscall"
	"testing"

	"github.com/murmur-go/mur/internal/testmur"
)

// TestPolicyExample runs examples/policy/run.sh as its README does: two
// denied commands, the audit file, one reopen, and the last line
// "status:  ok", with nothing it started left running.
func TestPolicyExample(t *testing.T) {
	root := testmur.TempDir(t)
	cmd := exec.Command("sh", "../../../examples/policy/run.sh")
	cmd.Env = testmur.Env(filepath.Join(root, "home"), "MUR="+murBin, "TMPDIR="+root, "WORK="+filepath.Join(root, "work"))
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := testmur.RunCmd(cmd)
	if left := testmur.InSession(cmd.Process.Pid); len(left) > 0 {
		t.Errorf("run.sh left processes running: %v", left)
	}
	if err != nil {
		t.Fatalf("run.sh: %v\n%s%s", err, out.String(), errb.String())
	}
	want := regexp.MustCompile(`(?s)^── denied calls\n  denied     turn 0  on-shell  guard  \S+/sh: destructive command\n` +
		`  denied     turn 0  on-shell  guard  \S+/sh: network tools are not allowed here\n── audit .*"event":"on-session-end".*\n` +
		`── reopens\n  reopen 1  tests-gate: check failed: greeting.txt must hold the line hello world\nstatus:  ok\n$`)
	if !want.MatchString(out.String()) {
		t.Errorf("run.sh printed:\n%s", out.String())
	}
}
