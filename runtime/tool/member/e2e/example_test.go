package e2e

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/murmur-go/mur/internal/testmur"
	"github.com/murmur-go/mur/runtime/trace"
)

// TestStudioExample runs examples/studio as its README and run.sh do — mur
// install --force of each member into the project store, then mur run --roster —
// on a copy, and checks the formation's answer: planner's task answered with
// coder's code and reviewer's review, which holds the tests reviewer had
// coder write (three members, three calls).
func TestStudioExample(t *testing.T) {
	t.Parallel()
	p := newProject(t)
	if err := os.CopyFS(p.dir, os.DirFS("../../../../examples/studio")); err != nil {
		t.Fatal(err)
	}
	for _, junk := range []string{".murmur", "murmur.lock"} { // left by a local run.sh
		_ = os.RemoveAll(filepath.Join(p.dir, junk))
	}
	for _, m := range []string{"planner", "coder", "reviewer"} {
		cmd := exec.Command(mur, "install", "--force", m)
		cmd.Dir, cmd.Env = p.dir, p.environ()
		if out, err := testmur.Combined(cmd); err != nil {
			t.Fatalf("mur install %s: %v\n%s", m, err, out)
		}
	}
	cmd := exec.Command(mur, "run", "--roster", ".", "--task", "Write a Go function that reverses a string")
	cmd.Dir, cmd.Env = p.dir, p.environ()
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := testmur.RunCmd(cmd)
	noneLeft(t, cmd.Process.Pid)
	if err != nil {
		t.Fatalf("mur run --roster: %v\n%s%s", err, out.String(), errb.String())
	}
	got := out.String()
	for _, part := range []string{
		"Done: Write a Go function that reverses a string\n\n## Code (by coder)\n\n```go\n// Reverse returns s with its runes in reverse order.\nfunc Reverse(s string) string {",
		"## Review (by reviewer)\n\nApproved.",
		"Tests (written by coder at my request):\n\n```go\nfunc TestReverse(t *testing.T) {",
	} {
		if !strings.Contains(got, part) {
			t.Errorf("the formation's answer lacks %q:\n%s", part, got)
		}
	}
	if !strings.HasSuffix(got, "```\nstatus:  ok\n") {
		t.Errorf("stdout does not end with the answer and status:  ok:\n%s", got)
	}
	planner := records(t, sessionDir(t, filepath.Join(p.home, "records", strings.TrimPrefix(p.dir, "/"))))
	if mc := of[trace.MemberCall](t, planner); len(mc) != 2 || mc[0].Member != "coder" || mc[1].Member != "reviewer" ||
		mc[0].Status != "completed" || mc[1].Status != "completed" {
		t.Errorf("planner's member_calls = %+v, want coder then reviewer, both completed", mc)
	}
	if !strings.Contains(errb.String(), "  entry  planner   starting") {
		t.Errorf("stderr lacks the formation block:\n%s", errb.String())
	}
}
