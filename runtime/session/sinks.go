package session

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/murmur-go/mur/a2a"
	"github.com/murmur-go/mur/runtime/agent"
	"github.com/murmur-go/mur/runtime/diag"
	"github.com/murmur-go/mur/runtime/tasktable"
	"github.com/murmur-go/mur/runtime/telemetry"
	"github.com/murmur-go/mur/runtime/tool"
	"github.com/murmur-go/mur/runtime/trace"
)

// sinks are where a task's ending goes (SES-5, LOOP-5, TRACE-4), in the
// order each relies on: the on-task-end observers; the conversation record;
// the waiters accounted for (RND-9, before task_end); out/result.txt; the
// max_tokens warning; task_canceled or task_failed; the A2A outcome, after
// the trace is checked; task_end and the session's totals; the task's span;
// stdout.
func (t *taskRun) sinks(ctx context.Context) []agent.Sink {
	end := &taskEnd{t: t}
	return []agent.Sink{
		agent.SinkFunc(func(e agent.Ending) { t.observeTaskEnd(ctx, e) }),
		recordSink{t},
		waitersSink{t},
		resultFileSink{t},
		maxTokensSink{t},
		end.failureSink(),
		end.outcomeSink(),
		end.taskEndSink(),
		spanSink{t},
		stdoutSink{t},
	}
}

// taskEnd is what the ending's sinks share: the background commands still
// running when the task ended, read once.
type taskEnd struct {
	t       *taskRun
	running []string
	read    bool
}

func (x *taskEnd) stillRunning() []string {
	if !x.read {
		x.running, x.read = x.t.s.toolset.Running(), true
	}
	return x.running
}

// recordSink writes the last answer to the conversation record, fsynced
// with task_end.
type recordSink struct{ t *taskRun }

func (k recordSink) TaskEnded(agent.Ending) {
	if k.t.recorded > 0 {
		k.t.recordMessages(true)
	}
}

// waitersSink accounts for every waiter's outstanding work (RND-9): its
// records come before task_end.
type waitersSink struct{ t *taskRun }

func (k waitersSink) TaskEnded(e agent.Ending) {
	t := k.t
	t.state.SetEnding(tool.Ending{Status: e.Status, NoTurnLeft: t.turns >= t.s.m.Inference.MaxTurns})
	t.writeRecs(t.state.Abandon())
}

// resultFileSink writes out/result.txt (SES-5).
type resultFileSink struct{ t *taskRun }

func (k resultFileSink) TaskEnded(e agent.Ending) {
	s := k.t.s
	if err := writeResult(filepath.Join(s.recordsDir, "out"), e.Text); err != nil {
		s.bootstrap(fmt.Sprintf("out/result.txt could not be written: %v\n", err))
	}
}

// maxTokensSink prints W-RUN-001 for an answer cut at the max_tokens cap.
type maxTokensSink struct{ t *taskRun }

func (k maxTokensSink) TaskEnded(e agent.Ending) {
	if e.MaxTokens {
		s := k.t.s
		fmt.Fprint(s.cfg.Stderr, diag.RunMaxTokensCut(s.m.Inference.MaxTokens).Render())
	}
}

// failureSink writes task_canceled or task_failed.
func (x *taskEnd) failureSink() agent.SinkFunc {
	return func(e agent.Ending) {
		t, s := x.t, x.t.s
		running := x.stillRunning()
		switch e.Status {
		case StatusCanceled:
			turn := t.turnIndex()
			_, _ = s.tr.Write(trace.TaskCanceled{TaskID: t.id, Turn: &turn, Phase: t.getPhase(),
				DetachedWorkIDs: t.stillDetached(running), DelegationIDs: t.state.EndedIDs(tool.FieldDelegations)})
		case StatusFailed:
			_, _ = s.tr.Write(trace.TaskFailed{TaskID: t.id, Turn: t.turnIndex(), Cause: e.Cause, Reason: e.Reason})
		}
	}
}

// outcomeSink hands the A2A outcome to the task table (and an answer's
// final text frame). A task whose records are lost (a records directory
// deleted under the session, a full disk) is not reported done: the trace
// is checked before the outcome, and a failed trace fails the task with
// E-RUN-007's text; the session then ends with it (LOOP-19).
func (x *taskEnd) outcomeSink() agent.SinkFunc {
	return func(e agent.Ending) {
		t, s := x.t, x.t.s
		lost := s.tr.Check()
		out := tasktable.Outcome{State: a2a.TaskStateFailed, Message: e.Text}
		if e.StatusText != "" {
			out.Message = e.StatusText
		}
		var meta a2a.MurmurTaskMetadata
		meta.RunningCommands = x.stillRunning()
		meta.NoAnswerBelow = t.state.NoAnswerBelow() // RND-7, set by the waiters' Abandon
		switch {
		case lost != nil:
			out.Message = lost.Error()
		case e.Status == StatusOK:
			out = tasktable.Outcome{State: a2a.TaskStateCompleted, Response: e.Text}
			s.reg.Frame(a2a.FrameText, a2a.TextFrame{ID: a2a.TaskID(t.id), Text: e.Text, Final: true})
		case e.Status == StatusCanceled:
			out.State = a2a.TaskStateCanceled
		case e.Status == StatusNoAnswer:
			out.Message = e.Reason // EWA-4: the bare reason
			meta.NoAnswer = true
		}
		if !meta.Empty() {
			out.Murmur = &meta
		}
		t.run.Finish(out)
	}
}

// taskEndSink writes task_end and adds its totals to the session's.
func (x *taskEnd) taskEndSink() agent.SinkFunc {
	return func(e agent.Ending) { x.t.writeTaskEnd(e, x.stillRunning()) }
}

// spanSink ends the task's span (OTEL-5) and keeps it as the session's last.
type spanSink struct{ t *taskRun }

func (k spanSink) TaskEnded(e agent.Ending) {
	t, s := k.t, k.t.s
	telemetry.EndTask(t.span, e.Status, e.Reason)
	s.mu.Lock()
	s.lastSpan = t.span.SpanContext()
	s.mu.Unlock()
}

// stdoutSink prints the task's text to the session's results (stdout), or
// to the bootstrap log when that write fails (CLI-4).
type stdoutSink struct{ t *taskRun }

func (k stdoutSink) TaskEnded(e agent.Ending) {
	s := k.t.s
	if s.cfg.Results == nil {
		return
	}
	if _, err := fmt.Fprintf(s.cfg.Results, "%s\n", e.Text); err != nil {
		s.bootstrap(e.Text + "\n")
	}
}
