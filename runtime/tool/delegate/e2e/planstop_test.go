package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/murmur-go/mur/internal/testmur"
	"github.com/murmur-go/mur/runtime/trace"
)

// TestPlanCanceledEndsChildren_PLAN7: a plan whose task is cancelled ends
// its capsule children then and there, not when its session ends: the
// parent keeps serving (queue, after_task sleep) while every process of
// its two children — their mur and what their shells run — is gone, each
// child having ended its session, and the plan's records say why.
func TestPlanCanceledEndsChildren_PLAN7(t *testing.T) {
	w := newWorld(t)
	ups := []string{filepath.Join(w.dir, "up-a"), filepath.Join(w.dir, "up-b")}
	for i, name := range []string{"wa", "wb"} {
		testmur.FIFO(t, ups[i])
		w.install(t, capsule{name: name, caps: unconfined, script: `script_version: 1
rules:
  - match: {always: true}
    turns:
      - tool_calls: [{name: bash, input: {command: "echo up > ` + ups[i] + `; sleep 60"}}]
      - text: never
`})
	}
	dir := w.put(t, capsule{name: "planner",
		caps: "  shell:\n    allow: [bash]\n  plan:\n    submit: true\n  spawn:\n    allow: [local/wa@0.1.0, local/wb@0.1.0]\n",
		script: "script_version: 1\nrules:\n  - match: {always: true}\n    turns:\n" +
			"      - tool_calls: [{name: submit-plan, input: {id: pair, steps: [{id: a, capsule: wa, input: work}, {id: b, capsule: wb, input: work}]}}]\n" +
			"      - text: never\n"})
	cmd, r, stderr := w.start(t, dir, "--lifecycle-task-acceptance", "queue", "--lifecycle-after-task", "sleep")
	t.Cleanup(func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); _ = cmd.Wait() })
	var sent struct {
		Result struct {
			Task struct {
				ID string `json:"id"`
			} `json:"task"`
		} `json:"result"`
	}
	answer := rpc(t, r.URL, `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"msg_plan","role":"ROLE_USER","parts":[{"text":"plan it"}]},"configuration":{"returnImmediately":true}}}`)
	if err := json.Unmarshal([]byte(answer), &sent); err != nil || sent.Result.Task.ID == "" {
		t.Fatalf("SendMessage = %s (%v)", answer, err)
	}
	task := sent.Result.Task.ID
	for _, up := range ups {
		readLine(t, up, cmd.Process) // both children at work, their shells sleeping
	}
	if len(testmur.InSession(cmd.Process.Pid)) < 5 {
		t.Fatalf("processes in mur's session before the cancel: %v, want the parent, two children and their shells", testmur.InSession(cmd.Process.Pid))
	}
	if got := rpc(t, r.URL, `{"jsonrpc":"2.0","id":2,"method":"CancelTask","params":{"id":"`+task+`"}}`); !strings.Contains(got, `"result"`) {
		t.Fatalf("CancelTask = %s", got)
	}
	// Only the parent is left, within the 5 s a child has to exit after
	// SIGTERM (DLG-5) and some slack for a loaded machine — and it serves.
	if left := leaderOnly(cmd.Process.Pid, 15*time.Second); left != nil {
		t.Fatalf("after the cancel, mur's session still holds: %s", strings.Join(left, "; "))
	}
	if got := rpc(t, r.URL, `{"jsonrpc":"2.0","id":3,"method":"GetTask","params":{"id":"`+task+`"}}`); !strings.Contains(got, `"state":"TASK_STATE_CANCELED"`) {
		t.Errorf("GetTask after the cancel = %s", got)
	}
	waitFor(t, 10*time.Second, func() bool {
		b, _ := os.ReadFile(filepath.Join(r.RecordsDir, "trace.jsonl"))
		return strings.Contains(string(b), `"event_type":"plan_end"`)
	})
	recs := records(t, r.RecordsDir)
	dels := of[trace.Delegation](t, recs)
	if len(dels) != 2 {
		t.Fatalf("delegation records = %+v", dels)
	}
	for _, d := range dels {
		if d.Outcome != "failed" || d.Reason == nil || *d.Reason != "the task running this plan was cancelled" {
			t.Errorf("delegation = %+v", d)
		}
	}
	for _, st := range of[trace.DelegationStart](t, recs) {
		cr := records(t, w.childRecords(t, filepath.Join(r.Workdir, st.ChildWorkdir), st.ChildSessionID))
		if end := of[trace.SessionEnd](t, cr); len(end) != 1 {
			t.Errorf("child %s did not end its session in order: %+v", st.Capsule, end)
		}
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Errorf("mur run after SIGTERM: %v\n%s", err, stderr.String())
	}
	noneLeft(t, cmd.Process.Pid)
}

// leaderOnly polls session sid every 20 ms until its leader (pid sid) is
// the one live process in it (nil), or d has passed (what is live).
func leaderOnly(sid int, d time.Duration) []string {
	self := strconv.Itoa(sid) + " ("
	deadline := time.After(d)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		left := testmur.InSession(sid)
		if len(left) == 1 && strings.HasPrefix(left[0], self) {
			return nil
		}
		select {
		case <-deadline:
			return left
		case <-tick.C:
		}
	}
}
