package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/murmur-go/mur/internal/testmur"
	"github.com/murmur-go/mur/runtime/spawn"
	"github.com/murmur-go/mur/runtime/trace"
)

// TestChildNeverHeld_DLG4: a child the referee allows, which is started but
// ends before it is ready (its driver's key is not in its environment: a
// child gets only DLG-3's), fails the call in the same turn — failed, with
// its delegation id and why — the child stopped and reaped, its stderr kept
// in the parent's logs; the parent's task goes on without waiting.
func TestChildNeverHeld_DLG4(t *testing.T) {
	w := newWorld(t)
	w.env = []string{"I11_CHILD_KEY=sk-parent-only"} // the parent's, never handed down
	w.write(t, "keyed/murmur.yaml", "name: keyed\nversion: \"0.1.0\"\ninference:\n  driver:\n    kind: openai\n    model: gpt-x\n    api_key: ${I11_CHILD_KEY}\n")
	installDir(t, w, filepath.Join(w.dir, "keyed"))
	dir := w.put(t, delegating("parent", "  spawn:\n    allow: [local/keyed@0.1.0]\n", "keyed", "work"))
	r, stderr, code := w.run(t, dir, "go")
	if code != 0 {
		t.Fatalf("mur run exited %d: %s", code, stderr)
	}
	recs := records(t, r.RecordsDir)
	out := toolOutputs(t, recs, "delegate-task")
	want := "<untrusted-content source=tool:delegate-task>\n" +
		`{"capsule":"keyed","delegation_id":"<dlg_1>","output":"keyed ended before it was ready: exit code 1","status":"failed","version":"0.1.0"}` +
		"\n</untrusted-content>"
	if len(out) != 1 || normalise(out[0]) != want {
		t.Fatalf("delegate-task result =\n%s\nwant\n%s", strings.Join(out, "\n"), want)
	}
	d := of[trace.Delegation](t, recs)
	if len(d) != 1 || d[0].Outcome != "failed" || d[0].DelegationID == nil || d[0].ChildSessionID != nil ||
		d[0].Reason == nil || *d[0].Reason != "keyed ended before it was ready: exit code 1" {
		t.Fatalf("delegation = %+v", d)
	}
	if n := len(of[trace.DelegationStart](t, recs)); n != 0 {
		t.Errorf("%d delegation_start for a child never ready", n)
	}
	if n := len(of[trace.TaskContinued](t, recs)); n != 0 {
		t.Errorf("the task waited on a failed delegation: %d task_continued", n)
	}
	log, err := os.ReadFile(filepath.Join(r.RecordsDir, "logs", *d[0].DelegationID+".log"))
	if err != nil || !strings.Contains(string(log), "error[E-MAN-003]: ") || !strings.Contains(string(log), "I11_CHILD_KEY is not set") {
		t.Errorf("the child's stderr in the parent's logs = %q, %v", log, err)
	}
}

// installDir installs the capsule in dir into the world's global store.
func installDir(t *testing.T, w *world, dir string) {
	t.Helper()
	cmd := exec.Command(mur, "install", "-g", dir)
	cmd.Dir, cmd.Env = w.dir, w.environ()
	if out, err := testmur.Combined(cmd); err != nil {
		t.Fatalf("mur install -g %s: %v\n%s", dir, err, out)
	}
}

// TestCompletionUnreadable_DLG8: a child that leaves a completion.json that
// does not read as one, and dies without posting, is reported unknown: its
// outcome says why, and the record names it.
func TestCompletionUnreadable_DLG8(t *testing.T) {
	w := newWorld(t)
	recRoot := filepath.Join(w.home, "records")
	w.install(t, capsule{name: "garbler", caps: unconfined, script: `script_version: 1
rules:
  - match: {always: true}
    turns:
      - tool_calls: [{name: bash, input: {command: "for d in ` + recRoot + `$(pwd)/ses_*; do printf '{not a completion' > $d/completion.json; done; kill -9 $PPID"}}]
      - text: never
`})
	dir := w.put(t, delegating("parent", "  shell:\n    allow: [bash]\n  spawn:\n    allow: [local/garbler@0.1.0]\n", "garbler", "work"))
	r, stderr, code := w.run(t, dir, "go")
	if code != 0 {
		t.Fatalf("mur run exited %d: %s", code, stderr)
	}
	recs := records(t, r.RecordsDir)
	d := of[trace.Delegation](t, recs)
	if len(d) != 1 || d[0].Outcome != "unknown" || d[0].Reason == nil || *d[0].Reason != "its completion.json could not be read" {
		t.Fatalf("delegation = %+v", d)
	}
	cont := continuation(t, r.RecordsDir, 1)
	if !strings.Contains(cont, " ended unknown:\n") || !strings.Contains(cont, "\nstatus: unknown\n") ||
		!strings.Contains(cont, "\ndetail: its completion.json could not be read") {
		t.Errorf("continuation:\n%s", cont)
	}
	st := of[trace.DelegationStart](t, recs)[0]
	if _, exists, ok := spawn.ReadCompletion(w.childRecords(t, filepath.Join(r.Workdir, st.ChildWorkdir), st.ChildSessionID)); !exists || ok {
		t.Errorf("the child's completion.json: exists %v, reads %v; want the broken one, left as it was", exists, ok)
	}
}
