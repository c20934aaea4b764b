package session

import (
	"context"
	"encoding/json"
	"strings"
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

// lane is task_start.lane (LOOP-4).
func lane(o a2a.Origin) string {
	switch o {
	case a2a.OriginUser:
		return "user"
	case a2a.OriginPeer:
		return "peer"
	}
	return "bg"
}

// partsBytes is task_start.message_parts_bytes: text bytes plus data parts'
// JSON bytes.
func partsBytes(m a2a.Message) int {
	n := 0
	for _, p := range m.Parts {
		switch {
		case p.Text != nil:
			n += len(*p.Text)
		case p.Data != nil:
			n += len(p.Data)
		case p.URL != nil:
			n += len(*p.URL)
		default:
			n += len(p.Raw)
		}
	}
	return n
}

// taskText is LOOP-21's first user message: the parts in order (data as
// compact JSON) joined by "\n", fenced under task:<origin> when untrusted.
func taskText(m a2a.Message, p tasktable.Provenance) string {
	text := partsText(m)
	if p.Trust == a2a.TrustUntrusted {
		return tool.Fence(tool.SourceTask+string(p.Origin), text)
	}
	return text
}

// partsText is LOOP-21's join of a message's parts: text parts and URLs as
// they are, data parts as compact JSON, joined by "\n" (also a reply's text,
// input.md INP-5).
func partsText(m a2a.Message) string {
	var parts []string
	for _, pt := range m.Parts {
		switch {
		case pt.Text != nil:
			parts = append(parts, *pt.Text)
		case pt.Data != nil:
			var v any
			if json.Unmarshal(pt.Data, &v) == nil {
				parts = append(parts, tool.JSON(v))
			} else {
				parts = append(parts, string(pt.Data))
			}
		case pt.URL != nil:
			parts = append(parts, *pt.URL)
		}
	}
	return strings.Join(parts, "\n")
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
		Origin: string(prov.Origin), Trust: string(prov.Trust), Lane: lane(prov.Origin),
		MessagePartsBytes: partsBytes(run.Message()), CallerMember: run.Caller().Member}) // caller_member: TRC-3
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
		{ID: a2a.NewID(a2a.PrefixMessage), Role: driver.RoleUser, Blocks: []driver.Block{driver.TextBlock(taskText(run.Message(), prov))}},
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
