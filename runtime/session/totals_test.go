package session

import (
	"fmt"
	"testing"
)

// checkTotals is TRACE-4: session_end's totals are the sums of the task_end
// fields, and total_turns is the number of agent inference lines.
func checkTotals(t *testing.T, recs []record) {
	t.Helper()
	se := ofType(recs, "session_end")
	if len(se) != 1 {
		t.Fatalf("session_end records = %d, want 1", len(se))
	}
	sums := map[string]float64{}
	for _, te := range ofType(recs, "task_end") {
		for _, k := range []string{"turns", "input_tokens", "output_tokens", "tool_calls", "shell_calls"} {
			sums[k] += te.Fields[k].(float64)
		}
	}
	for k, total := range map[string]string{"turns": "total_turns", "input_tokens": "total_input_tokens",
		"output_tokens": "total_output_tokens", "tool_calls": "total_tool_calls", "shell_calls": "total_shell_calls"} {
		if got := se[0].Fields[total]; got != sums[k] {
			t.Errorf("session_end.%s = %v, want %v (the sum of task_end.%s)", total, got, sums[k], k)
		}
	}
	if got, want := se[0].Fields["total_turns"], float64(len(ofType(recs, "inference"))); got != want {
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
	te := ofType(recs, "task_end")
	if len(te) != 1 || te[0].Fields["turns"] != float64(1) {
		t.Errorf("task_end = %v, want turns 1", te)
	}
	if tf := ofType(recs, "task_failed"); len(tf) != 1 || tf[0].Fields["turn"] != float64(1) {
		t.Errorf("task_failed = %v, want turn 1 (the call that failed)", tf)
	}
	checkTotals(t, recs)
}

// TestTotalsAfterCancelInInference_TRACE4: a call dropped by a cancel
// writes no inference line and counts no turn.
func TestTotalsAfterCancelInInference_TRACE4(t *testing.T) {
	s, _, _ := cancelInInference(t)
	recs := readTrace(t, s)
	if te := ofType(recs, "task_end"); len(te) != 1 || te[0].Fields["turns"] != float64(0) {
		t.Errorf("task_end = %v, want turns 0", te)
	}
	checkTotals(t, recs)
}
