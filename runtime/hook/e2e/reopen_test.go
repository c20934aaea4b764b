package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/murmur-go/mur/runtime/trace"
)

const reopenManifest = `name: reviewed
version: "0.1.0"
inference:
  driver:
    kind: scripted
    script: script.yaml
  max_turns: %d
lifecycle:
  max_task_reopens: %d
trace:
  capture: content
artifacts:
  - name: gatekeeper
    version: "1.0.0"
    runtime: hook
`

// alwaysReopen answers every on-task-end decision with reopen-task.
var alwaysReopen = hookScript(`  case "$line" in
    *'"phase":"decide"'*) reply '"answer":"reopen-task","reason":"the tests fail; fix them"';;
    *) reply '"answer":"none"';;
  esac
`)

const answerScript = `script_version: 1
rules:
  - match: {always: true}
    turns:
      - text: "first answer"
      - text: "second answer"
      - text: "third answer"
      - text: "fourth answer"
`

func reopenCapsule(t *testing.T, maxTurns, reopens int) *capsule {
	t.Helper()
	c := newCapsule(t, fmt.Sprintf(reopenManifest, maxTurns, reopens), answerScript)
	c.mustInstallHook(t, "gatekeeper", "binding: on-task-end\ncommit_policy: reopen-task\n", alwaysReopen)
	return c
}

// TestReopen_BoundedByMaxTaskReopens: an on-task-end hook that always
// reopens gets lifecycle.max_task_reopens (2) reopens — each a task_reopened
// with every field and the model reading `Reopen <n> — from hook <name>`
// and the feedback — then the task ends reopen_budget_exhausted with
// task_end.reopen_count 2.
func TestReopen_BoundedByMaxTaskReopens(t *testing.T) {
	t.Parallel()
	c := reopenCapsule(t, 8, 2)
	r, _, _ := c.run(t, "answer")
	recs := records(t, r.RecordsDir)
	reopened := of[trace.TaskReopened](t, recs)
	if len(reopened) != 2 {
		t.Fatalf("task_reopened = %+v, want 2", reopened)
	}
	for i, ro := range reopened {
		if ro.HookName != "gatekeeper" || ro.Reason != "the tests fail; fix them" || ro.ReopenNumber != i+1 || ro.TurnsRemaining != 8-(i+1) || ro.AttemptContext != nil {
			t.Errorf("task_reopened %d = %+v", i+1, ro)
		}
	}
	ends := of[trace.TaskEnd](t, recs)
	if len(ends) != 1 || ends[0].ExitStatus != "reopen_budget_exhausted" || ends[0].ReopenCount != 2 || ends[0].Turns != 3 {
		t.Errorf("task_end = %+v", ends)
	}
	result, err := os.ReadFile(filepath.Join(r.RecordsDir, "out", "result.txt"))
	if err != nil || string(result) != "error: task reopen budget exhausted" {
		t.Errorf("result.txt = %q, %v", result, err)
	}
	if got := lastUserText(t, r); got != "Reopen 2 — from hook gatekeeper\n\nthe tests fail; fix them" {
		t.Errorf("the reopened attempt read %q", got)
	}
}

// TestReopen_BoundedByMaxTurns: with reopens to spare, the shared
// inference.max_turns (2) ends the loop: one reopen, then
// reopen_budget_exhausted with the turn budget's text.
func TestReopen_BoundedByMaxTurns(t *testing.T) {
	t.Parallel()
	c := reopenCapsule(t, 2, 5)
	r, _, _ := c.run(t, "answer")
	recs := records(t, r.RecordsDir)
	if n := len(of[trace.TaskReopened](t, recs)); n != 1 {
		t.Errorf("task_reopened count = %d, want 1", n)
	}
	ends := of[trace.TaskEnd](t, recs)
	if len(ends) != 1 || ends[0].ExitStatus != "reopen_budget_exhausted" || ends[0].Turns != 2 || ends[0].ReopenCount != 1 {
		t.Errorf("task_end = %+v", ends)
	}
	result, _ := os.ReadFile(filepath.Join(r.RecordsDir, "out", "result.txt"))
	if string(result) != "error: task turn budget exhausted" {
		t.Errorf("result.txt = %q", result)
	}
}
