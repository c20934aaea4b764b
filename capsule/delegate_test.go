package capsule_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/murmur-go/mur/internal/testmur"
	"github.com/murmur-go/mur/runtime/trace"
	"github.com/murmur-go/mur/runtime/trace/tracetest"
)

// install puts the capsule s in the world and installs it into the global
// store with the real binary (mur install -g): where a parent's children
// come from.
func (w *world) install(t testing.TB, s spec) {
	t.Helper()
	cmd := exec.Command(mur, "install", "-g", put(t, w.dir, s))
	cmd.Dir, cmd.Env = w.dir, testmur.Env(w.home)
	if out, err := testmur.Combined(cmd); err != nil {
		t.Fatalf("mur install -g %s: %v\n%s", s.name, err, out)
	}
}

// delegate serves, in this process, a parent that delegates one task to the
// installed child and answers once its outcome arrived; it returns the
// parent's one delegation record and the continuation that carried it. The
// child is a real mur process.
func delegate(t *testing.T, child spec) (trace.Delegation, string) {
	t.Helper()
	w := newWorld(t)
	w.install(t, child)
	parent := w.start(t, spec{name: "parent", caps: "  shell:\n    allow: [bash]\n  spawn:\n    allow: [local/" + child.name + "@0.1.0]\n", script: `script_version: 1
rules:
  - match: {always: true}
    turns:
      - tool_calls: [{name: delegate-task, input: {capsule: ` + child.name + `, version: "0.1.0", task: "work"}}]
      - text: "waiting for the outcome"
      - text: "PARENT-DONE"
`}, ptr("go"), nil)
	if res := parent.Wait(t); res.Err != nil || res.ExitStatus != "ok" {
		t.Fatalf("parent ended %+v\nstderr:\n%s", res, parent.Stderr)
	}
	dels := tracetest.OfType[trace.Delegation](t, tracetest.Records(t, parent.RecordsDir))
	if len(dels) != 1 {
		t.Fatalf("delegation records = %+v, want one", dels)
	}
	return dels[0], tracetest.Continuation(t, parent.RecordsDir, 1)
}

// TestDelegateOK: a child that answers ends its delegation ok, and its
// answer reaches the parent's continuation (DLG-4, DLG-7, DLG-8).
func TestDelegateOK(t *testing.T) {
	t.Parallel()
	d, cont := delegate(t, spec{name: "worker", script: "script_version: 1\nrules:\n  - match: {always: true}\n    turns:\n      - text: \"CHILD-ANSWER\"\n"})
	if d.Outcome != "ok" || d.Reason != nil || d.Capsule != "worker" || d.ChildSessionID == nil {
		t.Errorf("delegation = %+v, want ok", d)
	}
	if !strings.Contains(cont, "\nstatus: ok\n") {
		t.Errorf("continuation:\n%s", cont)
	}
	// The answer is the child's result, in its workdir, which the
	// continuation names.
	_, rest, _ := strings.Cut(cont, "\nworkdir: ")
	workdir, _, _ := strings.Cut(rest, "\n")
	if b, err := os.ReadFile(filepath.Join(workdir, ".murmur", *d.ChildSessionID, "result.txt")); err != nil || string(b) != "CHILD-ANSWER" {
		t.Errorf("the child's result = %q, %v; want CHILD-ANSWER", b, err)
	}
}

// TestDelegateFailed: a child whose task fails reports error, with no
// reason of the parent's own; the parent goes on with that outcome (DLG-7).
func TestDelegateFailed(t *testing.T) {
	t.Parallel()
	d, cont := delegate(t, spec{name: "worker", script: "script_version: 1\nrules:\n  - match: {always: true}\n    turns:\n      - {error: \"the model is gone\"}\n"})
	if d.Outcome != "error" || d.Reason != nil {
		t.Errorf("delegation = %+v, want error with the child's own report", d)
	}
	if !strings.Contains(cont, "the model is gone") {
		t.Errorf("continuation:\n%s", cont)
	}
}

// TestDelegateCrashed: a child killed mid-task (its own shell SIGKILLs it)
// never writes a completion; the delegation ends crashed, naming the kill
// (DLG-7).
func TestDelegateCrashed(t *testing.T) {
	t.Parallel()
	d, cont := delegate(t, spec{name: "worker", caps: "  shell:\n    allow: [bash]\n  containment: advisory\n", script: `script_version: 1
rules:
  - match: {always: true}
    turns:
      - tool_calls: [{name: bash, input: {command: "sleep 1; kill -KILL $PPID; sleep 60"}}]
      - text: never
`})
	if d.Outcome != "crashed" || d.Reason == nil || *d.Reason != "its process ended without a completion: killed by SIGKILL" {
		t.Errorf("delegation = %+v, want crashed by SIGKILL", d)
	}
	if !strings.Contains(cont, "ended crashed:\n") || !strings.Contains(cont, "\nstatus: crashed\n") {
		t.Errorf("continuation:\n%s", cont)
	}
}
