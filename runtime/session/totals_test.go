package session

import (
	"fmt"
	"testing"

	"github.com/murmur-go/mur/runtime/trace"
)

// checkTotals is TRACE-4: session_end's totals are the sums of the task_end
// fields, and total_turns is the number of agent inference lines.
func checkTotals(t *testing.T, recs []trace.Line) {
	t.Helper()
	se := of[trace.SessionEnd](t, recs)
	if len(se) != 1 {
		t.Fatalf("session_end records = %d, want 1", len(se))
	}
	var sum trace.SessionEnd
	for _, te := range of[trace.TaskEnd](t, recs) {
		sum.TotalTurns += te.Turns
		sum.TotalInputTokens += te.InputTokens
		sum.TotalOutputTokens += te.OutputTokens
		sum.TotalToolCalls += te.ToolCalls
		sum.TotalShellCalls += te.ShellCalls
	}
	got := se[0]
	got.DurationMS, got.ExitStatus = 0, ""
	if got != sum {
		t.Errorf("session_end totals = %+v, want the sums of task_end's fields %+v", got, sum)
	}
	if got, want := se[0].TotalTurns, len(of[trace.Inference](t, recs)); got != want {
		t.Errorf("session_end.total_turns = %v, want %v (the inference lines)", got, want)
	}
}

// TestTotalsAfterDriverError_TRACE4: a driver call that fails writes no
// inference line, so it is not a turn of task_end either.
func TestTotalsAfterDriverError_TRACE4(t *testing.T) {
	dir := writeCapsule(t, fmt.Sprintf(scriptedManifest, "capabilities:\n  shell:\n    allow: [bash]\n"), `script_version: 1
rules:
  - match: {always: true}
    turns:
      - tool_calls: [{name: bash, input: {command: "true"}}]
`)
	s := startIn(t, prepareIn(t, dir, ptr("x"), nil), nil, nil)
	if res := s.Run(); res.ExitStatus != StatusFailed || res.Text != "error: script exhausted after 1 turns" {
		t.Errorf("Run = %+v", res)
	}
	recs := readTrace(t, s)
	te := of[trace.TaskEnd](t, recs)
	if len(te) != 1 || te[0].Turns != 1 {
		t.Errorf("task_end = %+v, want turns 1", te)
	}
	if tf := of[trace.TaskFailed](t, recs); len(tf) != 1 || tf[0].Turn != 1 {
		t.Errorf("task_failed = %+v, want turn 1 (the call that failed)", tf)
	}
	checkTotals(t, recs)
}

// TestTotalsAfterCancelInInference_TRACE4: a call dropped by a cancel
// writes no inference line and counts no turn.
func TestTotalsAfterCancelInInference_TRACE4(t *testing.T) {
	s, _, _ := cancelInInference(t)
	recs := readTrace(t, s)
	if te := of[trace.TaskEnd](t, recs); len(te) != 1 || te[0].Turns != 0 {
		t.Errorf("task_end = %+v, want turns 0", te)
	}
	checkTotals(t, recs)
}
