package e2e

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/murmur-go/mur/internal/testmur"
	"github.com/murmur-go/mur/runtime/tool/plan"
	"github.com/murmur-go/mur/runtime/trace"
	"github.com/murmur-go/mur/runtime/trace/tracetest"
)

const plannerManifest = `name: planner
version: "0.1.0"
inference:
  driver:
    kind: scripted
    script: script.yaml
  max_turns: 6
  system_prompt: You plan.
capabilities:
  shell:
    allow: [sh, echo]
  plan:
    submit: true
trace:
  capture: content
`

// report is submit-plan's report (PLAN-7).
type report struct {
	Completed  bool    `json:"completed"`
	FailedStep *string `json:"failed_step"`
	PlanID     string  `json:"plan_id"`
	Steps      []struct {
		StepID string  `json:"step_id"`
		Status string  `json:"status"`
		Output *string `json:"output"`
		Error  *string `json:"error"`
	} `json:"steps"`
}

// decodeReport reads the report out of its tool:submit-plan fence.
func decodeReport(t *testing.T, content string) report {
	t.Helper()
	body, ok := strings.CutPrefix(content, "<untrusted-content source=tool:submit-plan>\n")
	body, ok2 := strings.CutSuffix(body, "\n</untrusted-content>")
	var r report
	if err := json.Unmarshal([]byte(body), &r); !ok || !ok2 || err != nil {
		t.Fatalf("report %q: %v", content, err)
	}
	return r
}

// TestPlans_PLAN1_PLAN8 submits a plan of shell and tool steps with failing
// steps under each on_error, a plan a failure stops, and a refused plan.
func TestPlans_PLAN1_PLAN8(t *testing.T) {
	c := newCapsule(t, plannerManifest, `script_version: 1
rules:
  - match: {always: true}
    turns:
      - tool_calls:
          - name: submit-plan
            input:
              id: ship
              steps:
                - {id: list, shell: "echo one two"}
                - {id: say, tool: echo, input: {command: "$list.output"}, depends_on: [list]}
                - {id: status, tool: session-status, depends_on: [say]}
                - {id: bad-skip, shell: "sh -c 'exit 2'", on_error: skip}
                - {id: bad-continue, shell: "sh -c 'echo no >&2; exit 3'", on_error: continue, retries: 1}
                - {id: after, shell: "echo after", depends_on: [bad-skip, bad-continue], if: "$bad-skip.status == 'skipped' && $bad-continue.status == 'failed'"}
      - tool_calls:
          - name: submit-plan
            input:
              id: stop
              steps:
                - {id: a, shell: "sh -c 'echo first; exit 5'"}
                - {id: b, shell: "echo never", depends_on: [a]}
      - tool_calls:
          - name: submit-plan
            input: {id: loop, steps: [{id: x, tool: submit-plan, input: {id: inner, steps: []}}]}
      - text: "planned"
`)
	r, stderr, code := c.run(t, "ship it")
	if code != 0 {
		t.Fatalf("mur run exited %d: %s", code, stderr)
	}
	recs := records(t, r.RecordsDir)
	got := calls(t, recs)
	if len(got) != 3 {
		t.Fatalf("tool calls = %q", got)
	}

	ship := decodeReport(t, got[0].output)
	status := map[string]string{}
	for _, s := range ship.Steps {
		status[s.StepID] = s.Status
	}
	if got[0].status != "ok" || !ship.Completed || ship.FailedStep != nil || ship.PlanID != "ship" || len(ship.Steps) != 6 ||
		status["list"] != "success" || status["say"] != "success" || status["status"] != "success" ||
		status["bad-skip"] != "skipped" || status["bad-continue"] != "failed" || status["after"] != "success" {
		t.Errorf("plan ship = %+v (%s)", ship, got[0].output)
	}
	for _, s := range ship.Steps {
		switch s.StepID {
		case "say": // the echo tool ran with list's output as its command
			if s.Output == nil || !strings.Contains(*s.Output, "Stdout:\none two\n") {
				t.Errorf("say's output = %v", s.Output)
			}
		case "bad-continue":
			if s.Error == nil || *s.Error != "exit code 3" || s.Output == nil || *s.Output != "no\n" {
				t.Errorf("bad-continue = %+v", s)
			}
		case "after":
			if s.Output == nil || *s.Output != "after\n" {
				t.Errorf("after's output = %v", s.Output)
			}
		}
	}

	stop := decodeReport(t, got[1].output)
	if got[1].status != "error" || stop.Completed || stop.FailedStep == nil || *stop.FailedStep != "a" || len(stop.Steps) != 1 ||
		*stop.Steps[0].Error != "exit code 5" || *stop.Steps[0].Output != "first\n" {
		t.Errorf("plan stop = %+v (%s)", stop, got[1].output)
	}
	if want := "plan 'loop' was refused before any step ran: step 'x': 'submit-plan' cannot be called from a plan step"; got[2] != (call{"submit-plan", want, "error"}) {
		t.Errorf("plan loop = %+v", got[2])
	}

	// PLAN-8: per plan, plan_start and plan_end under its turn.
	starts, ends, endLines := tracetest.Lines[trace.PlanStart](recs), of[trace.PlanEnd](t, recs), tracetest.Lines[trace.PlanEnd](recs)
	infs, infLines := of[trace.Inference](t, recs), tracetest.Lines[trace.Inference](recs)
	if len(starts) != 3 || len(ends) != 3 {
		t.Fatalf("%d plan_start, %d plan_end", len(starts), len(ends))
	}
	for i, w := range []struct{ plan, outcome, failed string }{{"ship", "completed", ""}, {"stop", "failed", "a"}, {"loop", "failed", "plan"}} {
		end := ends[i]
		failed := ""
		if end.FailedStep != nil {
			failed = *end.FailedStep
		}
		if end.PlanID != w.plan || end.Outcome != w.outcome || failed != w.failed || parent(endLines[i]) != infLines[i].EventID ||
			parent(starts[i]) != infLines[i].EventID {
			t.Errorf("plan_end[%d] = %s", i, endLines[i].Raw)
		}
	}
	if n := len(of[trace.PlanStepStart](t, recs)); n != 8 { // list, say, status, bad-skip, bad-continue ×2, after, a
		t.Errorf("%d plan_step_start records, want 8", n)
	}
	// The steps' shell records count as the session's shell calls (TRACE-4).
	shells := of[trace.Shell](t, recs)
	end := of[trace.SessionEnd](t, recs)[0]
	if len(shells) != 7 || end.TotalShellCalls != len(shells) || end.TotalToolCalls != 3 {
		t.Errorf("%d shell records; session_end = %+v", len(shells), end)
	}
	for n := 1; n <= 3; n++ {
		if _, err := os.Stat(filepath.Join(runtimeDir(r), "plans", "plan-"+string(rune('0'+n))+".json")); err != nil {
			t.Errorf("plans/plan-%d.json: %v", n, err)
		}
	}
	// STAGE-4: the plan guidance closes the system prompt.
	if sys := blob(t, r.RecordsDir, infs[0].SystemSHA); !strings.HasSuffix(sys, "\n\nYou plan.\n\n"+plan.Guidance) {
		t.Errorf("system prompt:\n%s", sys)
	}
}

// TestPlanCanceled_PLAN7 cancels the task (SIGTERM) while a plan's shell
// step runs: the step's process group is killed, plan_end is canceled and
// task_canceled names phase plan.
func TestPlanCanceled_PLAN7(t *testing.T) {
	c := newCapsule(t, plannerManifest, `script_version: 1
rules:
  - match: {always: true}
    turns:
      - tool_calls:
          - name: submit-plan
            input:
              id: long
              steps:
                - {id: wait, shell: "sh -c 'echo go > started.fifo; exec cat block.fifo'"}
                - {id: then, shell: "echo then", depends_on: [wait]}
      - text: "never"
`)
	for _, p := range []string{"started.fifo", "block.fifo"} {
		testmur.FIFO(t, filepath.Join(c.dir, p))
	}
	cmd := c.command("run", "--json", "--task", "wait")
	var stderr testmur.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := testmur.Start(cmd); err != nil {
		t.Fatal(err)
	}
	line, _ := bufio.NewReader(out).ReadString('\n')
	var r readiness
	if err := json.Unmarshal([]byte(line), &r); err != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		_ = cmd.Wait()
		t.Fatalf("readiness %q: %v; stderr %s", line, err, stderr.String())
	}
	if b := testmur.ReadFIFO(t, filepath.Join(c.dir, "started.fifo"), cmd.Process); string(b) != "go\n" {
		t.Errorf("started.fifo = %q", b)
	}
	_ = cmd.Process.Signal(syscall.SIGTERM)
	code := exitCode(cmd.Wait())
	noneLeft(t, cmd.Process.Pid)
	if code != 1 {
		t.Errorf("mur run exited %d, want 1 (canceled); stderr %s", code, stderr.String())
	}
	recs := records(t, r.RecordsDir)
	ends, steps := of[trace.PlanEnd](t, recs), of[trace.PlanStep](t, recs)
	if len(ends) != 1 || ends[0].Outcome != "canceled" || ends[0].Reason == nil || *ends[0].Reason != "the task running this plan was cancelled" ||
		ends[0].FailedStep != nil {
		t.Errorf("plan_end = %v", tracetest.Lines[trace.PlanEnd](recs))
	}
	if len(steps) != 1 || steps[0].StepID != "wait" || steps[0].Status != "failed" {
		t.Errorf("plan_step = %+v", steps)
	}
	if tc := of[trace.TaskCanceled](t, recs); len(tc) != 1 || tc[0].Phase != "plan" {
		t.Errorf("task_canceled = %+v", tc)
	}
	if got := calls(t, recs); len(got) != 1 || got[0].status != "error" || decodeReport(t, got[0].output).Completed {
		t.Errorf("tool calls = %+v", got)
	}
}
