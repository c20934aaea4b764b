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

// TestDelegationOutcomeByResume is PROC-12 for delegate-task: the
// harness's bridged delegate-task starts a sub-capsule, and its outcome
// arrives — through the task state's one continuation seam, as member
// answers do — as the prompt of a resume of the same harness session.
func TestDelegationOutcomeByResume(t *testing.T) {
	t.Parallel()
	c := delegating(t, `{"runs":[
		{"steps":[{"tool":{"name":"delegate-task","args":{"capsule":"counter","version":"0.1.0","task":"one two three"}}},{"answer":"waiting for counter"}]},
		{"steps":[{"answer":"counter answered"}]}]}`)
	r, _, stderr, code := c.run(t, "count")
	if res := result(t, r); code != 0 || res != "counter answered" {
		t.Fatalf("mur run = %d, result %q, stderr %s", code, res, stderr)
	}
	recs := records(t, r.RecordsDir)
	starts := of[trace.HarnessStart](t, recs)
	if len(starts) != 2 || starts[1].Mode != "resume" || starts[1].PromptKind != "continuation" {
		t.Fatalf("harness_start = %+v", starts)
	}
	tc := only[trace.TaskContinued](t, recs)
	if len(tc.Delegations) != 1 || len(tc.MemberCalls) != 0 {
		t.Errorf("task_continued = %+v, want one delegation", tc)
	}
	if got := c.calls(t)[1].Stdin; !strings.HasPrefix(got, "[delegate-task] delegation "+tc.Delegations[0]+" to counter@0.1.0 ended ok:") {
		t.Errorf("the resume's prompt = %q, want the delegation's outcome", got)
	}
}

// delegating is a fake-harness capsule that may delegate to an installed
// scripted sub-capsule, counter, which answers "counted three words".
func delegating(t *testing.T, script string) *hcap {
	t.Helper()
	c := newCap(t, "claude", "", "", script)
	man, _ := os.ReadFile(filepath.Join(c.dir, "murmur.yaml"))
	c.write(t, "murmur.yaml", strings.Replace(string(man), "  shell: {allow: [echo, sleep]}\n",
		"  shell: {allow: [echo, sleep]}\n  spawn: {allow: [local/counter@0.1.0]}\n", 1))
	sub := filepath.Join(c.dir, "counter")
	mkdirs(t, sub)
	for rel, body := range map[string]string{
		"murmur.yaml": "name: counter\nversion: \"0.1.0\"\ninference:\n  driver: {kind: scripted, script: script.yaml}\n",
		"script.yaml": "script_version: 1\nrules: []\nfallback:\n  turns:\n    - text: \"counted three words\"\n",
	} {
		if err := os.WriteFile(filepath.Join(sub, rel), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	inst := exec.Command(mur, "install", "counter")
	inst.Dir, inst.Env = c.dir, testmur.Env(c.home, c.env...)
	if out, err := testmur.Combined(inst); err != nil {
		t.Fatalf("mur install counter: %v\n%s", err, out)
	}
	return c
}

// TestContinuationLost is PROC-13's last case: a continuation's resume
// that reports no session fails the task E-RUN-036 naming the task that
// started the session (no file: the conversation is stateless), rather
// than answering the outcome from nothing.
func TestContinuationLost(t *testing.T) {
	t.Parallel()
	c := delegating(t, `{"runs":[
		{"steps":[{"tool":{"name":"delegate-task","args":{"capsule":"counter","version":"0.1.0","task":"one two three"}}},{"forget":true},{"answer":"waiting for counter"}]},
		{"steps":[{"answer":"unreachable"}]}]}`)
	r, _, stderr, code := c.run(t, "count")
	recs := records(t, r.RecordsDir)
	sess := only[trace.HarnessSession](t, recs)
	id := sess.HarnessSessionID
	want := "the harness 'claude-code' could not continue session " + id + ", which task " + sess.TaskID + " started: No conversation found with session ID: " + id
	if res := result(t, r); code != 1 || res != "error: "+want {
		t.Fatalf("mur run = %d, result %q, want error: %q; stderr %s", code, res, want, stderr)
	}
	if !strings.Contains(stderr, "error[E-RUN-036]: "+want+"\n") {
		t.Errorf("stderr = %q, want E-RUN-036", stderr)
	}
	if f := only[trace.TaskFailed](t, recs); f.Cause != "harness_session_lost" || f.Reason != want {
		t.Errorf("task_failed = %+v", f)
	}
	if starts := of[trace.HarnessStart](t, recs); len(starts) != 2 || starts[1].Mode != "resume" || starts[1].PromptKind != "continuation" {
		t.Errorf("harness_start = %+v: a lost continuation is not restarted", starts)
	}
}
