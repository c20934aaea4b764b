package e2e

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/murmur-go/mur/internal/golden"
	"github.com/murmur-go/mur/internal/testmur"
	"github.com/murmur-go/mur/runtime/spawn"
	"github.com/murmur-go/mur/runtime/trace"
)

const spawnsAll = "  shell:\n    allow: [bash]\n  spawn:\n    allow: [local/slow@0.1.0]\n"

// slow is a sub-capsule whose one turn takes a minute: it is still working
// when the test acts.
var slow = capsule{name: "slow", script: "script_version: 1\nrules:\n  - match: {always: true}\n    turns:\n      - {delay_ms: 60000, text: SLOW}\n"}

// outcome runs a parent that delegates to child and returns its one
// delegation record and the continuation its next inference saw.
func outcome(t *testing.T, w *world, child capsule, args ...string) (trace.Delegation, string, readiness) {
	t.Helper()
	w.install(t, child)
	dir := w.put(t, delegating("parent", "  shell:\n    allow: [bash]\n  spawn:\n    allow: [local/"+child.name+"@0.1.0]\n", child.name, "work"))
	r, stderr, code := w.run(t, dir, "go", args...)
	if code != 0 {
		t.Fatalf("mur run exited %d: %s", code, stderr)
	}
	dels := of[trace.Delegation](t, records(t, r.RecordsDir))
	if len(dels) != 1 {
		t.Fatalf("delegation records = %+v", dels)
	}
	return dels[0], normaliseIn(continuation(t, r.RecordsDir, 1), r.Workdir), r
}

// TestChildFails_DLG7: a child whose task fails reports error, with the
// session's ending as detail; the parent continues with that outcome.
func TestChildFails_DLG7(t *testing.T) {
	w := newWorld(t)
	d, cont, _ := outcome(t, w, capsule{name: "worker", script: "script_version: 1\nrules:\n  - match: {always: true}\n    turns:\n      - {error: \"the model is gone\"}\n"})
	if d.Outcome != "error" || d.Reason != nil {
		t.Errorf("delegation = %+v, want outcome error, reason null (the child's own report)", d)
	}
	golden.Check(t, "child_fails_continuation", cont)
}

// TestChildKilled_DLG7: a child SIGKILLed mid-task never writes a
// completion: the parent reports crashed, naming the kill.
func TestChildKilled_DLG7(t *testing.T) {
	w := newWorld(t)
	fifo := filepath.Join(w.dir, "pid")
	testmur.FIFO(t, fifo)
	w.install(t, capsule{name: "worker", caps: unconfined, script: `script_version: 1
rules:
  - match: {always: true}
    turns:
      - tool_calls: [{name: bash, input: {command: "echo $PPID > ` + fifo + `; sleep 60"}}]
      - text: never
`})
	dir := w.put(t, delegating("parent", "  shell:\n    allow: [bash]\n  spawn:\n    allow: [local/worker@0.1.0]\n", "worker", "work"))
	cmd, r, stderr := w.start(t, dir, "--task", "go")
	line := readLine(t, fifo, cmd.Process) // blocks until the child's bash writes it
	pid, err := strconv.Atoi(line)
	if err != nil {
		t.Fatalf("child pid %q: %v", line, err)
	}
	// The child is at work; kill it once delegate-task returned started
	// (before that, the call fails instead: DLG-4).
	waitFor(t, 10*time.Second, func() bool {
		b, _ := os.ReadFile(filepath.Join(r.RecordsDir, "trace.jsonl"))
		return strings.Contains(string(b), `"event_type":"tool_call"`) // delegate-task's, the task's first
	})
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("mur run: %v\n%s", err, stderr.String())
	}
	noneLeft(t, cmd.Process.Pid)
	dels := of[trace.Delegation](t, records(t, r.RecordsDir))
	if len(dels) != 1 || dels[0].Outcome != "crashed" || dels[0].Reason == nil ||
		*dels[0].Reason != "its process ended without a completion: killed by SIGKILL" {
		t.Fatalf("delegation = %+v", dels)
	}
	cont := continuation(t, r.RecordsDir, 1)
	if !strings.Contains(cont, "ended crashed:\n") || !strings.Contains(cont, "\nstatus: crashed\n") ||
		!strings.Contains(cont, "\ndetail: its process ended without a completion: killed by SIGKILL") {
		t.Errorf("continuation:\n%s", cont)
	}
	st := of[trace.DelegationStart](t, records(t, r.RecordsDir))[0]
	comp, _, ok := spawn.ReadCompletion(w.childRecords(t, filepath.Join(r.Workdir, st.ChildWorkdir), st.ChildSessionID))
	if !ok || comp.Status != "crashed" || comp.ReportedBy != "launcher" || !comp.Delivered {
		t.Errorf("completion.json the parent wrote = %+v", comp)
	}
}

// TestDelegationDeadline_DLG5: a child still working at the delegation
// deadline (MURMUR_DELEGATION_TIMEOUT_SECS) is ended: terminated, the reason
// naming the bound in seconds, and it is gone when the parent ends.
func TestDelegationDeadline_DLG5(t *testing.T) {
	w := newWorld(t)
	w.env = []string{"MURMUR_DELEGATION_TIMEOUT_SECS=1"}
	d, cont, r := outcome(t, w, slow)
	want := "the delegation ran past its deadline of 1s (lifecycle.delegation_deadline_secs), so the runtime ended the sub-capsule"
	if d.Outcome != "terminated" || d.Reason == nil || *d.Reason != want {
		t.Errorf("delegation = %+v", d)
	}
	golden.Check(t, "deadline_continuation", cont)
	st := of[trace.DelegationStart](t, records(t, r.RecordsDir))[0]
	comp, _, ok := spawn.ReadCompletion(w.childRecords(t, filepath.Join(r.Workdir, st.ChildWorkdir), st.ChildSessionID))
	if !ok || comp.Status != "terminated" || comp.ReportedBy != "launcher" || comp.Delivered {
		t.Errorf("completion.json = %+v, want the parent's terminated record, posted to nobody", comp)
	}
}

// TestParentKilled_DLG6: the parent SIGKILLed mid-delegation: the child's
// lifeline closes, it writes spawner_ended, cancels its task and ends its
// session in order — and no process is left within 10 s.
func TestParentKilled_DLG6(t *testing.T) {
	w := newWorld(t)
	fifo := filepath.Join(w.dir, "started")
	testmur.FIFO(t, fifo)
	w.install(t, capsule{name: "worker", caps: unconfined, script: `script_version: 1
rules:
  - match: {always: true}
    turns:
      - tool_calls: [{name: bash, input: {command: "echo up > ` + fifo + `; sleep 60"}}]
      - text: never
`})
	dir := w.put(t, delegating("parent", "  shell:\n    allow: [bash]\n  spawn:\n    allow: [local/worker@0.1.0]\n", "worker", "work"))
	cmd, r, _ := w.start(t, dir, "--task", "go")
	readLine(t, fifo, cmd.Process) // the child is at work
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	goneWithin(t, cmd.Process.Pid, 10*time.Second)
	st := of[trace.DelegationStart](t, records(t, r.RecordsDir))[0]
	crecs := w.childRecords(t, filepath.Join(r.Workdir, st.ChildWorkdir), st.ChildSessionID)
	cr := records(t, crecs)
	ended := of[trace.SpawnerEnded](t, cr)
	if len(ended) != 1 || ended[0].SpawnedBy != r.SessionID || ended[0].DelegationID != st.DelegationID {
		t.Errorf("spawner_ended = %+v", ended)
	}
	canceled := of[trace.TaskCanceled](t, cr)
	end := of[trace.SessionEnd](t, cr)
	if len(canceled) != 1 || len(end) != 1 || end[0].ExitStatus != "canceled" {
		t.Errorf("child task_canceled %+v, session_end %+v", canceled, end)
	}
	comp, _, ok := spawn.ReadCompletion(crecs)
	if !ok || comp.Status != "error" || comp.Delivered || comp.DeliveryError != "the spawner had ended, so there was no door to post it to" ||
		comp.Detail != "session ended canceled: spawner ended" {
		t.Errorf("completion.json = %+v", comp)
	}
	_ = os.Remove(filepath.Join(w.home, "running", r.SessionID+".json")) // the SIGKILLed parent's
	if ents, _ := os.ReadDir(filepath.Join(w.home, "running")); len(ents) != 0 {
		t.Errorf("running records left: %v", ents)
	}
}
