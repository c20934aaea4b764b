package session

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/murmur-go/mur/a2a"
	"github.com/murmur-go/mur/runtime/agent"
	"github.com/murmur-go/mur/runtime/driver"
	"github.com/murmur-go/mur/runtime/telemetry"
	"github.com/murmur-go/mur/runtime/tool"
	"github.com/murmur-go/mur/runtime/toolset"
	"github.com/murmur-go/mur/runtime/trace"
)

// afterAnswer is LOOP-12: an attempt that ended with an answer passes the
// continuation (LOOP-15), keep_working (LOOP-13) and done_check (LOOP-14), in
// order. more is true when the task goes on with another turn.
func (t *taskRun) afterAnswer(ctx context.Context, e agent.Ending) (next agent.Ending, more bool) {
	maxTurns := t.s.m.Inference.MaxTurns
	if t.turns < maxTurns {
		if e, more, ended := t.continuation(ctx); ended || more {
			return e, more
		}
	}
	if kw := t.s.m.Lifecycle.KeepWorking; kw != nil && t.keepUsed < kw.Limit && t.turns < maxTurns {
		t.mu.Lock()
		t.keepUsed++
		used := t.keepUsed
		t.mu.Unlock()
		t.reprompt(promptKeepWorking, kw.Message)
		_, _ = t.s.tr.Write(trace.KeepWorking{TaskID: t.id, Used: used, Left: kw.Limit - used})
		return agent.Ending{}, true
	}
	if dc := t.s.m.Lifecycle.DoneCheck; dc != nil {
		if e, more := t.doneCheck(ctx, e); more || e.Status != StatusOK {
			return e, more
		}
	}
	return t.hookReopen(ctx, e)
}

// reprompt appends a user message holding text; under transport: process
// it is the next run's prompt, a resume of the same harness session
// (PROC-5, PROC-12, PROC-13).
func (t *taskRun) reprompt(kind, text string) {
	t.msgs = append(t.msgs, driver.Message{ID: a2a.NewID(a2a.PrefixMessage), Role: driver.RoleUser, Blocks: []driver.Block{driver.TextBlock(text)}})
	t.next = prompt{kind: kind, text: text}
	if kind == promptKeepWorking || kind == promptDoneCheck || kind == promptHookReopen {
		t.feedback = append(t.feedback, text)
	}
}

// continuation is LOOP-15 / tools.md RND: with work outstanding, the task
// waits for all of it on its state (tool.TaskState.Wait), then continues
// with one user message holding every outcome (Deliver). ended is true when
// a cancel ended the wait.
func (t *taskRun) continuation(ctx context.Context) (e agent.Ending, more, ended bool) {
	if !t.state.Pending() {
		return agent.Ending{}, false, false
	}
	s := t.s
	start := s.now()
	t.setPhase(t.state.WaitPhase())
	wctx, span := telemetry.StartWait(ctx, s.tracer)
	err := t.state.Wait(wctx, func(text string) {
		t.setPhase(t.state.WaitPhase()) // the kind still out may change as outcomes arrive
		t.run.Status(text)
	})
	span.End()
	if err != nil {
		e, _ := t.canceled() // ctx ends only after the task's cancel
		return e, false, true
	}
	t.setPhase("turn")
	r := t.state.Deliver()
	t.writeRecs(r.Records)
	if r.Status != "" {
		t.run.Status(r.Status)
	}
	t.reprompt(promptContinuation, r.Text)
	t.continuations++
	_, _ = s.tr.Write(trace.TaskContinued{TaskID: t.id, ContinuationNumber: t.continuations,
		MemberCalls: nonNil(r.IDs[tool.FieldMemberCalls]), Delegations: nonNil(r.IDs[tool.FieldDelegations]),
		WaitedMS: elapsedMS(start, s.now()), TurnsRemaining: s.m.Inference.MaxTurns - t.turns})
	return agent.Ending{}, true, false
}

// doneCheck is LOOP-14: run the command; not passed and under its limit,
// reopen the task with the output; limit spent and still failing, fail it.
func (t *taskRun) doneCheck(ctx context.Context, e agent.Ending) (agent.Ending, bool) {
	s := t.s
	dc := s.m.Lifecycle.DoneCheck
	r := agent.DoneCheck{Command: dc.Command, Timeout: time.Duration(dc.TimeoutSecs) * time.Second, Dir: s.workdir, Env: s.env,
		Start: s.sandbox.Start, Keep: toolset.TailBytes, Now: s.now}.Run(ctx)
	t.mu.Lock()
	t.doneRuns++
	t.doneOutcome = r.Outcome
	run := t.doneRuns
	t.mu.Unlock()
	_, _ = s.tr.Write(trace.DoneCheck{TaskID: t.id, Run: run, Outcome: r.Outcome, ExitCode: r.Code,
		DurationMS: r.Duration.Milliseconds(), OutputBytes: r.Bytes})
	if ce, ok := t.canceled(); ok {
		return ce, false
	}
	if r.Outcome == "passed" || dc.Limit == 0 {
		return e, false
	}
	msg := agent.DoneCheckMessage(dc.Command, r.Outcome, r.Code, r.Tail)
	if t.doneReopens >= dc.Limit {
		// Built, not cut from msg: the command may hold a ';' itself.
		reason := "done_check " + agent.DoneCheckEnded(dc.Command, r.Outcome, r.Code)
		return agent.Ending{Status: StatusFailed, Text: agent.ResultFailed(reason), Cause: "done_check", Reason: reason}, false
	}
	if t.turns >= s.m.Inference.MaxTurns {
		return agent.Ending{Status: StatusReopenBudget, Text: agent.ResultTurnBudget}, false
	}
	t.mu.Lock()
	t.doneReopens++
	n := t.doneReopens
	t.mu.Unlock()
	t.reprompt(promptDoneCheck, msg)
	_, _ = s.tr.Write(trace.TaskReopened{TaskID: t.id, HookName: "done_check",
		Reason: "[done_check] " + agent.DoneCheckEnded(dc.Command, r.Outcome, r.Code) + "; its last output:", ReopenNumber: n,
		TurnsRemaining: s.m.Inference.MaxTurns - t.turns})
	if t.run.Provenance().Source == "task_md" {
		p := filepath.Join(s.runtimeDir, "task.md")
		if f, err := os.OpenFile(p, os.O_WRONLY|os.O_APPEND, 0o600); err == nil {
			if n == 1 {
				fmt.Fprint(f, "\n\n# Reopen feedback\n")
			}
			fmt.Fprintf(f, "\n%s\n", msg)
			f.Close()
		}
	}
	return agent.Ending{}, true
}

// writeTaskEnd writes task_end (capsule.md §6) and adds its totals to the
// session's (TRACE-4).
func (t *taskRun) writeTaskEnd(e agent.Ending, running []string) {
	s := t.s
	t.mu.Lock()
	defer t.mu.Unlock()
	rec := trace.TaskEnd{TaskID: t.id, ExitStatus: e.Status, DurationMS: elapsedMS(t.start, s.now()),
		// turns counts the task's inference lines, so that session_end's
		// total_turns is both their sum and the agent inference lines
		// (TRACE-4): a call that failed or was canceled wrote none.
		Turns: t.inferred, InputTokens: t.inTokens, OutputTokens: t.outTokens,
		ToolCalls: t.toolCalls, ShellCalls: t.shellCalls, ReopenCount: t.doneReopens + t.hookReopens, RunningCommands: running}
	if kw := s.m.Lifecycle.KeepWorking; kw != nil {
		var by string
		switch {
		case t.keepUsed >= kw.Limit:
			by = "limit"
		case e.Status == StatusSpendCeiling:
			by = "spend_ceiling"
		case e.Status == StatusCanceled && t.run.CancelCause() == ByDeadline:
			by = "deadline"
		case t.turns >= s.m.Inference.MaxTurns:
			by = "max_turns"
		}
		rec.KeepWorking = &trace.TaskKeepWorking{Used: t.keepUsed, StoppedBy: orNull(by)}
	}
	if s.m.Lifecycle.DoneCheck != nil {
		rec.DoneCheck = &trace.TaskDoneCheck{Runs: t.doneRuns, Reopens: t.doneReopens, Outcome: orNull(t.doneOutcome)}
	}
	_, _ = s.tr.Write(rec)
	s.stats.mu.Lock()
	s.stats.inTokens += t.inTokens
	s.stats.outTokens += t.outTokens
	s.stats.mu.Unlock()
}
