package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/murmur-go/mur/internal/testmur"
	"github.com/murmur-go/mur/runtime/trace"
)

// TestDelegateExample runs examples/delegate as its README and run.sh do —
// mur install --force of both sub-capsules into the project store, then mur
// run in a fresh workdir — on a copy, and checks lead's answer: both
// outcomes, read from the sub-capsules' result files, then status:  ok.
func TestDelegateExample(t *testing.T) {
	w := newWorld(t)
	if err := os.CopyFS(w.dir, os.DirFS("../../../../examples/delegate")); err != nil {
		t.Fatal(err)
	}
	for _, junk := range []string{".murmur", "murmur.lock", ".work"} { // left by a local run.sh
		_ = os.RemoveAll(filepath.Join(w.dir, junk))
	}
	for _, c := range []string{"counter", "reverser"} {
		cmd := exec.Command(mur, "install", "--force", c)
		cmd.Dir, cmd.Env = w.dir, w.environ()
		if out, err := testmur.Combined(cmd); err != nil {
			t.Fatalf("mur install %s: %v\n%s", c, err, out)
		}
	}
	work := filepath.Join(w.dir, ".work")
	if err := os.Mkdir(work, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(mur, "run", "--workdir", work, "--task", "Count the words of one sentence and reverse a word.")
	cmd.Dir, cmd.Env = w.dir, w.environ()
	cmd.SysProcAttr = setsid()
	stdout, stderr, code := testmur.Exec(t, cmd)
	noneLeft(t, cmd.Process.Pid)
	if code != 0 {
		t.Fatalf("mur run exited %d:\n%s%s", code, stdout, stderr)
	}
	for _, part := range []string{
		"Both sub-capsules answered:\n",
		"counter: the task has this many words\n$ printf '%s' 'the quick brown fox jumps over the lazy dog' | wc -w\nExit code: 0\nStdout:\n9\n",
		"reverser: the task read backwards\n$ printf '%s\\n' 'stressed' | rev\nExit code: 0\nStdout:\ndesserts\n",
	} {
		if !strings.Contains(stdout, part) {
			t.Errorf("lead's answer lacks %q:\n%s", part, stdout)
		}
	}
	if !strings.HasSuffix(stdout, "\nstatus:  ok\n") {
		t.Errorf("stdout does not end with status:  ok:\n%s", stdout)
	}
	group := filepath.Join(w.home, "records", strings.TrimPrefix(work, "/"))
	ses, err := filepath.Glob(filepath.Join(group, "ses_*")) // the children's records are under .murmur/children/
	if err != nil || len(ses) != 1 {
		t.Fatalf("lead's records: %v %v", ses, err)
	}
	recs := records(t, ses[0])
	var outcomes []string
	for _, d := range of[trace.Delegation](t, recs) {
		outcomes = append(outcomes, d.Capsule+":"+d.Outcome)
	}
	if got := strings.Join(outcomes, ","); got != "counter:ok,reverser:ok" {
		t.Errorf("delegations = %s", got)
	}
	if c := of[trace.TaskContinued](t, recs); len(c) != 1 || len(c[0].Delegations) != 2 {
		t.Errorf("task_continued = %+v, want both outcomes in one round", c)
	}
}
