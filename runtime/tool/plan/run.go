package plan

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/murmur-go/mur/runtime/tool"
	"github.com/murmur-go/mur/runtime/trace"
)

// planRun is one submitted plan being run (PLAN-3, PLAN-4, PLAN-6).
//
// Goroutines: the call's goroutine schedules; each dispatched step runs on a
// goroutine of its own, which the scheduler waits for before the call
// returns. Tool steps take toolMu, so they run one at a time; shell steps run
// concurrently.
type planRun struct {
	t     *planTool
	cc    *tool.CallContext
	id    string
	steps []*planStep
	start time.Time

	toolMu sync.Mutex // tool steps run one at a time (PLAN-6)

	mu      sync.Mutex
	settled map[string]*stepOutcome // by step id
	order   []*stepOutcome          // settling order (PLAN-7)
	recs    []tool.Rec              // the steps' own tool records, written after tool_call
	shells  int                     // shell commands run: shell steps and shell tool steps
	workIDs []string                // commands tool steps moved to the background
}

// stepOutcome is a settled step (PLAN-7's report entry).
type stepOutcome struct {
	id       string
	kind     string
	status   string
	output   *string
	err      *string
	attempts int
	dur      time.Duration
}

// attemptResult is one dispatch of a step.
type attemptResult struct {
	output *string
	err    string // "" on success
}

// settleMsg is a step's worker reporting back; buffered channel, one per step.
type settleMsg struct {
	step     *planStep
	last     attemptResult
	attempts int
	dur      time.Duration
}

// run schedules the plan to its end and returns the report (PLAN-7).
func (r *planRun) run(ctx context.Context) tool.Result {
	r.settled = map[string]*stepOutcome{}
	r.cc.Phase("plan") // LOOP-16: a cancel during the plan lands in phase plan
	stepCtx, stop := context.WithCancel(ctx)
	defer stop()
	state := map[string]int{}                  // 0 pending, 1 running, 2 settled
	done := make(chan settleMsg, len(r.steps)) // each step settles at most once
	running, failedStep := 0, ""
	for {
		// A pass settles every step whose condition is false, in plan order,
		// then dispatches the ready steps, in plan order: their first
		// plan_step_start is written here, before their goroutines start, so
		// the records of one pass come in one order (PLAN-8). A step made
		// ready by a failure's stop is not dispatched (PLAN-4).
		var ready []*planStep
		for progress := true; progress && failedStep == "" && ctx.Err() == nil; {
			progress = false
			for _, s := range r.steps {
				if state[s.ID] != 0 || !r.depsSettled(s) || failedStep != "" {
					continue
				}
				progress = true
				if run, why := r.condition(s); !run {
					state[s.ID] = 2
					if why == "" {
						r.settle(s, stepSkipped, nil, nil, 0, 0)
					} else if r.failed(s, attemptResult{err: why}, 0, 0) {
						failedStep = s.ID
						stop()
					}
					continue
				}
				state[s.ID] = 1
				ready = append(ready, s)
			}
		}
		if failedStep == "" && ctx.Err() == nil {
			for _, s := range ready {
				running++
				r.writeStepStart(s, 1)
				go func() { done <- r.worker(stepCtx, s) }()
			}
		}
		if running == 0 {
			break
		}
		m := <-done
		running--
		state[m.step.ID] = 2
		switch {
		case m.last.err == "" && m.attempts > 0:
			r.settle(m.step, stepSuccess, m.last.output, nil, m.attempts, m.dur)
		case ctx.Err() != nil:
			r.settle(m.step, stepFailed, m.last.output, strPtr(planCanceled), m.attempts, m.dur)
		case failedStep != "":
			// Stopped by another step's failure (PLAN-4 fail): it was
			// dispatched, so it is in the report.
			r.settle(m.step, stepFailed, m.last.output, strPtr(stepStopped(failedStep)), m.attempts, m.dur)
		case r.failed(m.step, m.last, m.attempts, m.dur):
			failedStep = m.step.ID
			stop()
		}
	}
	switch {
	case ctx.Err() != nil:
		r.writeEnd("canceled", "", planCanceled)
		return r.report(false, "", fmt.Sprintf("%s: %s canceled", tool.NameSubmitPlan, r.id))
	case failedStep != "":
		r.cc.Phase("turn")
		r.writeEnd("failed", failedStep, "")
		return r.report(false, failedStep, fmt.Sprintf("%s: %s failed at %s", tool.NameSubmitPlan, r.id, failedStep))
	}
	r.cc.Phase("turn")
	r.writeEnd("completed", "", "")
	return r.report(true, "", fmt.Sprintf("%s: %s completed", tool.NameSubmitPlan, r.id))
}

func strPtr(s string) *string { return &s }

// failed settles a step whose last attempt failed by its on_error (PLAN-4)
// and reports whether it stops the plan.
func (r *planRun) failed(s *planStep, last attemptResult, attempts int, dur time.Duration) (stops bool) {
	switch s.OnError {
	case "skip":
		r.settle(s, stepSkipped, last.output, strPtr(last.err), attempts, dur)
	case "continue":
		r.settle(s, stepFailed, last.output, strPtr(last.err), attempts, dur)
	default:
		r.settle(s, stepFailed, last.output, strPtr(last.err), attempts, dur)
		return true
	}
	return false
}

// depsSettled reports whether every step s depends on has settled.
func (r *planRun) depsSettled(s *planStep) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, d := range s.DependsOn {
		if r.settled[d] == nil {
			return false
		}
	}
	return true
}

// condition evaluates s's if before dispatch (PLAN-3): run is false for a
// false condition (why "") or one that cannot be evaluated (why says so).
func (r *planRun) condition(s *planStep) (run bool, why string) {
	if s.If == "" {
		return true, ""
	}
	ok, err := evalIf(s.If, r.resolve)
	if err != nil {
		return false, err.Error()
	}
	return ok, ""
}

// resolve reads a reference's value from a settled step (PLAN-3).
func (r *planRun) resolve(x ref) (string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	o := r.settled[x.step]
	if o == nil {
		return "", fmt.Errorf("%s", stepUnsettled(x))
	}
	if x.field == "status" {
		return o.status, nil
	}
	if o.output == nil {
		return "", nil
	}
	return *o.output, nil
}

// worker runs a dispatched step, whose first plan_step_start is written,
// retrying a failed attempt while the plan runs (PLAN-4).
func (r *planRun) worker(ctx context.Context, s *planStep) settleMsg {
	start := r.t.now()
	var last attemptResult
	attempts := 0
	for attempts == 0 || attempts <= s.Retries && ctx.Err() == nil {
		attempts++
		if attempts > 1 {
			r.writeStepStart(s, attempts)
		}
		switch s.kind() {
		case "tool":
			last = r.toolStep(ctx, s)
		case "capsule":
			last = r.capsuleStep(ctx, s)
		default:
			last = r.shellStep(ctx, s)
		}
		if last.err == "" {
			break
		}
	}
	return settleMsg{step: s, last: last, attempts: attempts, dur: r.t.now().Sub(start)}
}

// writeStepStart writes plan_step_start for one attempt of s (PLAN-8).
func (r *planRun) writeStepStart(s *planStep, attempt int) {
	r.write(trace.PlanStepStart{Turn: r.cc.Turn, TaskID: r.cc.TaskID, PlanID: r.id, StepID: s.ID,
		Kind: s.kind(), DependsOn: orEmpty(s.DependsOn), Attempt: attempt})
}

// toolStep calls a tool through the session's dispatch: the same lookup,
// required-field check and refusals as a call from a turn (PLAN-6).
func (r *planRun) toolStep(ctx context.Context, s *planStep) attemptResult {
	input, err := substitute(s.Input, r.resolve)
	if err != nil {
		return attemptResult{err: err.Error()}
	}
	reg := r.t.cfg.Registry()
	self, refusal := reg.Lookup(s.Tool)
	if refusal != "" {
		return attemptResult{err: refusal}
	}
	if missing := reg.MissingRequired(self, input); len(missing) > 0 {
		return attemptResult{err: tool.LacksRequired(s.Tool, missing)}
	}
	if self.Spec().Kind != tool.KindShell { // a shell tool step meets on-shell inside the tool
		if denied := r.cc.GatedTool(ctx, s.Tool, input); denied != nil {
			return attemptResult{err: denied.Data}
		}
	}
	r.toolMu.Lock()
	res := self.Call(ctx, &tool.CallContext{TaskID: r.cc.TaskID, Turn: r.cc.Turn, Task: r.cc.Task, Gate: r.cc.Gate, GateTool: r.cc.GateTool}, input)
	r.toolMu.Unlock()
	r.mu.Lock()
	r.recs = append(r.recs, res.Records...)
	r.shells += res.Shells
	r.workIDs = append(r.workIDs, res.Detached...)
	r.mu.Unlock()
	if res.Refused {
		return attemptResult{err: res.Data}
	}
	out, _ := tool.Cut64(res.Data)
	if res.Status == tool.Failed {
		return attemptResult{output: &out, err: stepToolFailed(s.Tool)}
	}
	return attemptResult{output: &out}
}

// settle records a settled step: its report entry and plan_step (PLAN-8).
func (r *planRun) settle(s *planStep, status string, output, errText *string, attempts int, dur time.Duration) {
	o := &stepOutcome{id: s.ID, kind: s.kind(), status: status, output: output, err: errText, attempts: attempts, dur: dur}
	r.mu.Lock()
	r.settled[s.ID] = o
	r.order = append(r.order, o)
	r.mu.Unlock()
	r.write(trace.PlanStep{Turn: r.cc.Turn, TaskID: r.cc.TaskID, PlanID: r.id, StepID: s.ID, Kind: o.kind,
		Status: status, Attempts: attempts, DurationMS: dur.Milliseconds(), Error: errText})
}

// report is PLAN-7's result: passed only when the plan completed.
func (r *planRun) report(completed bool, failedStep, summary string) tool.Result {
	steps := make([]map[string]any, 0, len(r.order))
	for _, o := range r.order {
		steps = append(steps, map[string]any{"step_id": o.id, "status": o.status, "output": o.output, "error": o.err})
	}
	var fs any
	if failedStep != "" {
		fs = failedStep
	}
	status := tool.Passed
	if !completed {
		status = tool.Failed
	}
	return tool.Result{Status: status, Summary: summary, Records: r.recs, Shells: r.shells, Detached: r.workIDs,
		Data: tool.JSON(map[string]any{"completed": completed, "failed_step": fs, "plan_id": r.id, "steps": steps})}
}

// writeStart writes plan_start: the authored DAG, before validation (PLAN-8).
func (r *planRun) writeStart(file string) {
	steps := make([]trace.PlanStartStep, len(r.steps))
	for i, s := range r.steps {
		steps[i] = trace.PlanStartStep{Kind: s.kind(), DependsOn: orEmpty(s.DependsOn), HasCondition: s.If != ""}
		if s.ID != "" {
			steps[i].StepID = &s.ID
		}
	}
	r.write(trace.PlanStart{Turn: r.cc.Turn, TaskID: r.cc.TaskID, PlanID: r.id, File: file,
		StepCount: len(r.steps), Steps: steps})
}

// writeEnd writes plan_end (PLAN-8): failed_step is "plan" for a plan
// refused before any step ran.
func (r *planRun) writeEnd(outcome, failedStep, reason string) {
	var ok, failed, skipped int
	r.mu.Lock()
	for _, o := range r.order {
		switch o.status {
		case stepSuccess:
			ok++
		case stepFailed:
			failed++
		default:
			skipped++
		}
	}
	r.mu.Unlock()
	end := trace.PlanEnd{Turn: r.cc.Turn, TaskID: r.cc.TaskID, PlanID: r.id, Outcome: outcome,
		StepsTotal: len(r.steps), StepsSucceeded: ok, StepsFailed: failed, StepsSkipped: skipped,
		DurationMS: r.t.now().Sub(r.start).Milliseconds()}
	if failedStep != "" {
		end.FailedStep = &failedStep
	}
	if reason != "" {
		end.Reason = &reason
	}
	r.write(end)
}

// write writes a plan record as the call runs, through the task's state,
// parented to the turn that made it (TRACE-2).
func (r *planRun) write(rec trace.Record) {
	if ts := r.cc.Task; ts != nil {
		ts.Write("", tool.Rec{Record: rec})
	}
}

func orEmpty(l []string) []string {
	if l == nil {
		return []string{}
	}
	return l
}
