package session

import (
	"context"
	"sync"
	"time"

	oteltrace "go.opentelemetry.io/otel/trace"

	"github.com/murmur-go/mur/a2a"
	"github.com/murmur-go/mur/runtime/agent"
	"github.com/murmur-go/mur/runtime/driver"
	"github.com/murmur-go/mur/runtime/tasktable"
	"github.com/murmur-go/mur/runtime/telemetry"
	"github.com/murmur-go/mur/runtime/tool"
	"github.com/murmur-go/mur/runtime/trace"
)

// taskRun is one task the loop runs: its conversation and counters. Only the
// pump's goroutine touches it, except through mu.
type taskRun struct {
	s     *Session
	run   *tasktable.Run
	id    string
	state *tool.TaskState
	span  oteltrace.Span // the task's span (OTEL-5), ended by finish
	start time.Time
	msgs  []driver.Message
	// recorded is how many of msgs the conversation record holds.
	recorded int
	// from is the index in msgs of the task's first message: the messages
	// before it are the context's earlier conversation (driver TaskFrom).
	from int
	// pending are the request-input calls a restored task makes again
	// before its first turn (resumeWaiting).
	pending []driver.Block
	// compactResumed: the resumed conversation is compacted before the
	// first turn (mur run --resume-mode compact).
	compactResumed bool

	mu          sync.Mutex
	phase       string // LOOP-16 phase a cancel lands in
	turns       int    // inference calls so far (LOOP-8)
	inferred    int    // inference lines written: task_end.turns (TRACE-4)
	keepUsed    int
	doneRuns    int
	doneReopens int
	hookReopens int // on-task-end reopen-task answers granted (lifecycle.max_task_reopens)
	doneOutcome string

	inTokens, outTokens   int64
	toolCalls, shellCalls int
	continuations         int
	detached              []string // work ids this task moved to the background
	// spendStop is the spend ceiling's refusal of a hook's or the
	// compactor's inference call: the task's ending when the compactor
	// then fails (a spend stop, not a failure).
	spendStop *agent.Ending

	// Under transport: process (process.md §5, §7).
	runs       int      // harness runs so far (harness_start.run)
	closed     int      // turns the harness closed: session-status turns.used (PROC-19)
	next       prompt   // the next run's prompt, set by reprompt
	feedback   []string // keep_working and done_check messages, for a restart (PROC-13)
	threadPath string   // harness-session.json under threaded, "" otherwise
	threadID   string   // the session it named when the task began
}

func (t *taskRun) setPhase(p string) {
	t.mu.Lock()
	t.phase = p
	t.mu.Unlock()
}

func (t *taskRun) getPhase() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.phase
}

// runTask runs one task from task_start to task_end and returns its exit
// status and SES-5 text.
func (s *Session) runTask(run *tasktable.Run) (status, text string) {
	prov := run.Provenance()
	// OTEL-1, OTEL-5: the task's span, the A2A server span, is parented on
	// the caller's trace context; every span of the task descends from it.
	ctx, span := telemetry.StartTask(taskContext(context.Background(), prov.TraceParent, prov.TraceState),
		s.tracer, s.m.Name, string(run.ID()), string(prov.Origin))
	ctx, cancel := context.WithCancel(ctx)
	var watch sync.WaitGroup
	watch.Go(func() {
		select {
		case <-run.Canceled():
			cancel()
		case <-ctx.Done():
		}
	})
	defer func() { cancel(); watch.Wait() }()
	t := &taskRun{s: s, run: run, id: string(run.ID()), start: s.now(), phase: "turn", span: span,
		state: tool.NewTaskState(tool.TaskInfo{ID: string(run.ID()), ContextID: string(run.ContextID()), Origin: string(prov.Origin), Trust: string(prov.Trust),
			CallerMember: run.Caller().Member}, s.tr)}
	_, _ = s.tr.Write(trace.TaskStart{TaskID: t.id, ContextID: string(run.ContextID()), Source: prov.Source,
		Origin: string(prov.Origin), Trust: string(prov.Trust), Lane: agent.Lane(prov.Origin),
		MessagePartsBytes: agent.PartsBytes(run.Message()), CallerMember: run.Caller().Member}) // caller_member: TRC-3
	s.mu.Lock()
	s.curTask = t
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.curTask = nil
		s.mu.Unlock()
	}()
	// The task first, then the per-session context (LOOP-6): the request's
	// bytes before the task are the same in every session of the capsule.
	t.msgs = []driver.Message{
		{ID: a2a.NewID(a2a.PrefixMessage), Role: driver.RoleUser, Blocks: []driver.Block{driver.TextBlock(agent.TaskText(run.Message(), prov))}},
		{ID: a2a.NewID(a2a.PrefixMessage), Role: driver.RoleUser, Blocks: []driver.Block{driver.TextBlock(s.context)}},
	}
	if !t.resumeWaiting() {
		if history, ok := s.takeResumed(string(run.ContextID())); ok {
			// A resumed conversation: the record as it was, then the new task;
			// the per-session context is already in it.
			t.msgs = append(history, t.msgs[0])
			t.recorded, t.from = len(history), len(history)
			t.compactResumed = s.l.Resumed.Compact
		}
	}
	t.taskStartHooks(ctx)
	var e agent.Ending
	for ev := range agent.Run(ctx, taskPolicy{t}, s.transport(t)) {
		if ev.Kind == agent.Ended {
			e = ev.Ending
		}
	}
	agent.Fan(e, t.sinks(ctx)...)
	return e.Status, e.Text
}

// transport is the agent loop's Transport for the session's
// inference.transport: a harness CLI under process, else the HTTP driver.
func (s *Session) transport(t *taskRun) agent.Transport {
	if s.hx != nil {
		return &harnessTransport{t: t}
	}
	return httpTransport{t}
}

// taskPolicy is the task's rule between the agent loop's steps.
type taskPolicy struct{ t *taskRun }

// Canceled is the canceled ending once the task's cancel landed.
func (p taskPolicy) Canceled() (agent.Ending, bool) { return p.t.canceled() }

// OutOfTurns is LOOP-8's ending once inference.max_turns turns are spent.
func (p taskPolicy) OutOfTurns() (agent.Ending, bool) {
	if n := p.t.s.m.Inference.MaxTurns; p.t.turns >= n {
		return agent.MaxTurns(n), true
	}
	return agent.Ending{}, false
}

// AfterAnswer is LOOP-12 (afterAnswer).
func (p taskPolicy) AfterAnswer(ctx context.Context, e agent.Ending) (agent.Ending, bool) {
	return p.t.afterAnswer(ctx, e)
}

// canceled returns the canceled ending when the task was cancelled.
func (t *taskRun) canceled() (agent.Ending, bool) {
	select {
	case <-t.run.Canceled():
		by := t.run.CancelCause()
		return agent.Ending{Status: StatusCanceled, Text: agent.ResultCanceled(by)}, true
	default:
		return agent.Ending{}, false
	}
}

// turnIndex is the 0-based turn the task is on: 0 before the first call.
func (t *taskRun) turnIndex() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.turns == 0 {
		return 0
	}
	return t.turns - 1
}

// stillDetached lists the work ids this task detached that still run.
func (t *taskRun) stillDetached(running []string) []string {
	out := []string{}
	for _, id := range t.detached {
		for _, r := range running {
			if r == id {
				out = append(out, id)
			}
		}
	}
	return out
}

// messageID is the messageId of the A2A message that started the task.
func (t *taskRun) messageID() string {
	if t.run == nil {
		return ""
	}
	return t.run.Message().MessageID
}
