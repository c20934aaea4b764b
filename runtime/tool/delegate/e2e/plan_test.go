package e2e

import (
	"encoding/json"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/murmur-go/mur/internal/testmur"
	"github.com/murmur-go/mur/runtime/trace"
)

// planReport is submit-plan's report (PLAN-7).
type planReport struct {
	Completed bool `json:"completed"`
	Steps     []struct {
		StepID string  `json:"step_id"`
		Status string  `json:"status"`
		Output *string `json:"output"`
		Error  *string `json:"error"`
	} `json:"steps"`
}

func readReport(t *testing.T, content string) planReport {
	t.Helper()
	body := strings.TrimPrefix(content, "<untrusted-content source=tool:submit-plan>\n")
	body = body[:strings.Index(body, "\n</untrusted-content>")]
	var r planReport
	if err := json.Unmarshal([]byte(body), &r); err != nil {
		t.Fatalf("report %q: %v", content, err)
	}
	return r
}

// TestPlanCapsuleSteps_PLAN6: two independent capsule steps run at the same
// time — each child waits, over two named pipes, for the other to be at
// work, so run one after the other they could never finish — each settles
// with its child's answer, and each child is ended once read. The records
// are DLG-9's for a plan step.
func TestPlanCapsuleSteps_PLAN6(t *testing.T) {
	w := newWorld(t)
	w.env = []string{"MURMUR_DELEGATION_TIMEOUT_SECS=60"} // a regression fails, not hangs
	ab, ba := filepath.Join(w.dir, "ab"), filepath.Join(w.dir, "ba")
	for _, f := range []string{ab, ba} {
		testmur.FIFO(t, f)
	}
	child := func(name, command string) capsule {
		return capsule{name: name, caps: unconfined, script: `script_version: 1
rules:
  - match: {always: true}
    turns:
      - tool_calls: [{name: bash, input: {command: "` + command + `"}}]
      - text: "` + strings.ToUpper(name) + ` answers {{task}}"
`}
	}
	w.install(t, child("a", "echo a > "+ab+"; cat "+ba), child("b", "cat "+ab+"; echo b > "+ba))
	dir := w.put(t, capsule{name: "planner",
		caps: "  shell:\n    allow: [bash]\n  plan:\n    submit: true\n  spawn:\n    allow: [local/a@0.1.0, local/b@0.1.0]\n",
		script: `script_version: 1
rules:
  - match: {always: true}
    turns:
      - tool_calls:
          - name: submit-plan
            input:
              id: pair
              steps:
                - {id: left, capsule: a, input: "the left half"}
                - {id: right, capsule: b, input: {objective: "the right half"}}
      - text: PLANNED
`})
	r, stderr, code := w.run(t, dir, "plan it")
	if code != 0 {
		t.Fatalf("mur run exited %d: %s", code, stderr)
	}
	recs := records(t, r.RecordsDir)
	out := toolOutputs(t, recs, "submit-plan")
	if len(out) != 1 {
		t.Fatalf("submit-plan calls: %q", out)
	}
	rep := readReport(t, out[0])
	answers := map[string]string{}
	for _, s := range rep.Steps {
		if s.Status == "success" && s.Output != nil {
			answers[s.StepID] = *s.Output
		}
	}
	if !rep.Completed || answers["left"] != "A answers the left half" || answers["right"] != "B answers the right half" {
		t.Errorf("report = %s", out[0])
	}
	starts, dels := of[trace.DelegationStart](t, recs), of[trace.Delegation](t, recs)
	if len(starts) != 2 || len(dels) != 2 {
		t.Fatalf("delegation_start %+v, delegation %+v", starts, dels)
	}
	for _, d := range dels {
		if d.Outcome != "completed" || d.DelegationID == nil || d.ChildSessionID == nil || d.Reason != nil {
			t.Errorf("delegation = %+v", d)
		}
	}
	for _, st := range starts {
		cr := records(t, w.childRecords(t, filepath.Join(r.Workdir, st.ChildWorkdir), st.ChildSessionID))
		if end := of[trace.SessionEnd](t, cr); len(end) != 1 {
			t.Errorf("child %s did not end its session: %+v", st.Capsule, end)
		}
	}
}

// TestPlanCanceled_PLAN7: cancelling the task stops the plan and ends its
// capsule children (plan_end canceled, task_canceled phase plan).
func TestPlanCanceled_PLAN7(t *testing.T) {
	w := newWorld(t)
	up := filepath.Join(w.dir, "up")
	testmur.FIFO(t, up)
	w.install(t, capsule{name: "worker", caps: unconfined, script: `script_version: 1
rules:
  - match: {always: true}
    turns:
      - tool_calls: [{name: bash, input: {command: "echo up > ` + up + `; sleep 60"}}]
      - text: never
`})
	dir := w.put(t, capsule{name: "planner",
		caps:   "  shell:\n    allow: [bash]\n  plan:\n    submit: true\n  spawn:\n    allow: [local/worker@0.1.0]\n",
		script: "script_version: 1\nrules:\n  - match: {always: true}\n    turns:\n      - tool_calls: [{name: submit-plan, input: {id: long, steps: [{id: w, capsule: worker, input: work}]}}]\n      - text: never\n"})
	cmd, r, _ := w.start(t, dir, "--task", "plan it")
	readLine(t, up, cmd.Process) // the child is at work
	task := of[trace.TaskStart](t, records(t, r.RecordsDir))[0].TaskID
	body := `{"jsonrpc":"2.0","id":1,"method":"CancelTask","params":{"id":"` + task + `"}}`
	req, _ := http.NewRequest(http.MethodPost, r.URL, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("A2A-Version", "1.0")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(b), `"result"`) {
		t.Fatalf("CancelTask = %s", b)
	}
	_ = cmd.Wait() // the launch task ended canceled: exit 1
	noneLeft(t, cmd.Process.Pid)
	recs := records(t, r.RecordsDir)
	ends := of[trace.PlanEnd](t, recs)
	if len(ends) != 1 || ends[0].Outcome != "canceled" || ends[0].Reason == nil || *ends[0].Reason != "the task running this plan was cancelled" {
		t.Errorf("plan_end = %+v", ends)
	}
	if c := of[trace.TaskCanceled](t, recs); len(c) != 1 || c[0].Phase != "plan" {
		t.Errorf("task_canceled = %+v", c)
	}
	d := of[trace.Delegation](t, recs)
	if len(d) != 1 || d[0].Outcome != "failed" || d[0].Reason == nil || *d[0].Reason != "the task running this plan was cancelled" {
		t.Errorf("delegation = %+v", d)
	}
}

// TestAuthenticatedChild_DLG3: a child whose door is authenticated is still
// handed its task, and read by a plan step's GetTask, with the token its
// parent handed it on the lifeline — which no running record, argv or file
// of the child carries.
func TestAuthenticatedChild_DLG3(t *testing.T) {
	w := newWorld(t)
	w.install(t, capsule{name: "guarded", extra: "network:\n  authentication:\n    scheme: bearer\n",
		script: "script_version: 1\nrules:\n  - match: {always: true}\n    turns:\n      - text: \"GUARDED answers {{task}}\"\n"})
	dir := w.put(t, capsule{name: "planner", caps: "  plan:\n    submit: true\n  spawn:\n    allow: [local/guarded@0.1.0]\n",
		script: "script_version: 1\nrules:\n  - match: {always: true}\n    turns:\n      - tool_calls: [{name: submit-plan, input: {id: p, steps: [{id: g, capsule: guarded, input: secret-work}]}}]\n      - tool_calls: [{name: delegate-task, input: {capsule: guarded, version: \"0.1.0\", task: again}}]\n      - text: waiting\n      - text: DONE\n"})
	r, stderr, code := w.run(t, dir, "go")
	if code != 0 {
		t.Fatalf("mur run exited %d: %s", code, stderr)
	}
	recs := records(t, r.RecordsDir)
	rep := readReport(t, toolOutputs(t, recs, "submit-plan")[0])
	if len(rep.Steps) != 1 || rep.Steps[0].Output == nil || *rep.Steps[0].Output != "GUARDED answers secret-work" {
		t.Errorf("plan report = %+v", rep)
	}
	var outcomes []string
	for _, d := range of[trace.Delegation](t, recs) {
		outcomes = append(outcomes, d.Outcome)
	}
	if got := strings.Join(outcomes, ","); got != "completed,ok" {
		t.Errorf("delegation outcomes = %s", got)
	}
}
