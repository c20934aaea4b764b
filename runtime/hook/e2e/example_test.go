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

// TestPolicyExample runs examples/policy/run.sh as its README does: a
// formation whose two members share the guard and audit hooks — lead's
// network tool and worker's destructive command denied, each member's audit
// file from its session start to its session end, worker's task reopened
// once by tests-gate, lead answering with worker's fixed answer — and the
// last line "status:  ok", with nothing it started left running.
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
	want := regexp.MustCompile(`(?s)^── lead: denied calls\n` +
		`  denied     turn 0  on-shell  guard  \S+/sh: network tools are not allowed here\n` +
		`── worker: denied calls\n` +
		`  denied     turn 0  on-shell  guard  \S+/sh: destructive command\n` +
		`── lead: audit \S+/audit/audit\.jsonl\)\n\{"id":1,"event":"on-session-start".*"capsule":"policy-lead".*"event":"on-session-end"[^\n]*\n` +
		`── worker: audit \S+/worker/audit/audit\.jsonl\)\n\{"id":1,"event":"on-session-start".*"capsule":"policy-worker".*"event":"on-shell".*"event":"on-session-end"[^\n]*\n` +
		`── worker: reopens\n  reopen 1  tests-gate: check failed: greeting.txt must hold the line hello world\n` +
		`── lead: answer\nDone: greeting.txt now says hello world\.\n` +
		`status:  ok\n$`)
	if !want.MatchString(out.String()) {
		t.Errorf("run.sh printed:\n%s", out.String())
	}
}
