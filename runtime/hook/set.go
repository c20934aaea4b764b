package hook

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/murmur-go/mur/runtime/proc"
	"github.com/murmur-go/mur/runtime/trace"
)

// Events, as the hook protocol names them.
const (
	OnSessionStart = "on-session-start"
	OnTaskStart    = "on-task-start"
	OnInference    = "on-inference"
	OnToolCall     = "on-tool-call"
	OnShell        = "on-shell"
	OnCompaction   = "on-compaction"
	OnTaskEnd      = "on-task-end"
	OnSessionEnd   = "on-session-end"
)

// Phases of a request.
const (
	PhaseDecide  = "decide"
	PhaseObserve = "observe"
)

// Arms a hook answers with.
const (
	ArmNone        = "none"
	ArmDeny        = "deny"
	ArmReopen      = "reopen-task"
	ArmSeedContext = "seed-context"
	ArmReplace     = "replace-context"
)

// QueueDepth is an async hook's queue, and DrainBudget how long the
// session-end drain waits for every async hook together.
const (
	QueueDepth  = 1024
	DrainBudget = 15 * time.Second
)

// Spec is one hook as a session starts it: the capsule entry's name and
// grant, the hook artifact's command and contract.
type Spec struct {
	Name    string   // the entry's name: what records and refusals name
	Command string   // absolute path of the executable
	Dir     string   // its working directory
	Env     []string // its whole environment
	Log     string   // logs/hook-<name>.log: its stderr and the runtime's fault lines

	Binding       string // "" every event
	ExecutionMode string // blocking | async
	CommitPolicy  string // none | deny | reopen-task | seed-context | …
	OnOverflow    string // drop | block (async only)

	TaskIORead       bool
	ConversationRead bool
	DeadlineSecs     int // 0: DefaultDeadline

	// Sandbox starts the process (the session's containment with only the
	// hook's own grants); nil starts it unconfined.
	Sandbox *proc.Sandbox
}

// Host answers a hook's host calls while it decides or observes: the
// session implements it. A refused call returns an error whose text the
// hook reads ("not-granted", "unknown call", …).
type Host interface {
	HostCall(ctx context.Context, h *Hook, call string, params json.RawMessage) (any, error)
}

// ErrNotGranted is the host's refusal of a call the hook's entry does not grant.
var ErrNotGranted = errors.New("not-granted")

// Denial is a decision point's refusal: which hook, and why.
type Denial struct {
	Hook   string
	Reason string
}

// Refusal is the text the model reads for a denied call (murmur's).
func (d *Denial) Refusal() string {
	return fmt.Sprintf("Refused by policy hook '%s': %s\n\nThis call did not run. Retrying it unchanged will be refused again.", d.Hook, d.Reason)
}

// Set is a session's hooks, in manifest order: the one place the runtime
// dispatches events to them. Safe for concurrent use.
type Set struct {
	hooks []*Hook
	async map[*Hook]*queue
	write func(trace.Record) // hook_dispatch_error
	wg    sync.WaitGroup     // the async workers
	drain time.Duration      // DrainBudget; a test's own shorter one
}

// NewSet makes the session's set. write receives hook_dispatch_error
// records; nothing starts until the first event.
func NewSet(specs []Spec, host Host, write func(trace.Record)) *Set {
	s := &Set{async: map[*Hook]*queue{}, write: write, drain: DrainBudget}
	for _, sp := range specs {
		h := &Hook{Spec: sp, sandbox: sp.Sandbox, host: host}
		s.hooks = append(s.hooks, h)
		if sp.ExecutionMode == "async" {
			q := &queue{jobs: make(chan job, QueueDepth), done: make(chan struct{}), closing: make(chan struct{})}
			q.ctx, q.cancel = context.WithCancel(context.Background())
			s.async[h] = q
			s.wg.Add(1)
			go s.work(h, q)
		}
	}
	return s
}

// Len is the number of hooks.
func (s *Set) Len() int {
	if s == nil {
		return 0
	}
	return len(s.hooks)
}

// Hooks are the set's hooks in manifest order.
func (s *Set) Hooks() []*Hook {
	if s == nil {
		return nil
	}
	return s.hooks
}

// receives reports whether h is dispatched for event.
func (h *Hook) receives(event string) bool {
	return h.Spec.Binding == "" || h.Spec.Binding == event
}

// decides reports whether h answers event at its decision point: its
// policy is the one the event commits.
func (h *Hook) decides(event string) bool {
	if !h.receives(event) || h.Spec.ExecutionMode == "async" {
		return false
	}
	switch event {
	case OnToolCall, OnShell:
		return h.Spec.CommitPolicy == ArmDeny
	case OnTaskEnd:
		return h.Spec.CommitPolicy == ArmReopen
	case OnTaskStart:
		return h.Spec.CommitPolicy == ArmSeedContext
	case OnCompaction:
		return h.Spec.CommitPolicy == ArmReplace
	}
	return false
}

// Gates reports whether any hook decides event (a dispatch without one
// skips building the event).
func (s *Set) Gates(event string) bool {
	for _, h := range s.Hooks() {
		if h.decides(event) {
			return true
		}
	}
	return false
}

// Decide is the decision point of a tool call or shell command (on-tool-call,
// on-shell): each policy hook, in manifest order, is asked; the first that
// does not answer a clean none refuses the call. A fault refuses it too
// (fail closed), and an arm other than deny or none is also recorded as a
// hook_dispatch_error. nil: the call may run.
func (s *Set) Decide(ctx context.Context, event string, payload any) *Denial {
	for _, h := range s.Hooks() {
		if !h.decides(event) {
			continue
		}
		a, err := h.call(ctx, event, PhaseDecide, payload)
		if err != nil {
			s.logFault(h, event, err.Error())
			return &Denial{Hook: h.Spec.Name, Reason: err.Error()}
		}
		switch {
		case a.Arm == ArmNone:
			continue
		case a.Arm == ArmDeny && a.Reason != "":
			return &Denial{Hook: h.Spec.Name, Reason: a.Reason}
		case a.Arm == ArmDeny:
			return &Denial{Hook: h.Spec.Name, Reason: "the hook denied the call with an empty reason"}
		}
		s.fault(h, event, a.Arm, fmt.Sprintf("the hook answered '%s', which %s does not honor", a.Arm, event))
		return &Denial{Hook: h.Spec.Name, Reason: fmt.Sprintf("the hook answered '%s', which %s does not honor", a.Arm, event)}
	}
	return nil
}

// Observe hands event to every hook dispatched for it that does not decide
// it — blocking ones in manifest order, async ones queued — after the fact:
// nothing they answer changes anything, and anything but none is a
// hook_dispatch_error.
func (s *Set) Observe(ctx context.Context, event string, payload any) {
	for _, h := range s.Hooks() {
		if !h.receives(event) {
			continue
		}
		if q := s.async[h]; q != nil {
			s.enqueue(h, q, job{event: event, payload: payload})
			continue
		}
		if h.decides(event) && event != OnToolCall && event != OnShell {
			continue // answered at its decision point
		}
		s.observeOne(ctx, h, event, payload)
	}
}

// observeOne is one observation call and its fault, if any.
func (s *Set) observeOne(ctx context.Context, h *Hook, event string, payload any) {
	a, err := h.call(ctx, event, PhaseObserve, payload)
	var f *fault
	switch {
	case errors.As(err, &f):
		s.fault(h, event, f.arm, f.text)
	case err != nil:
		s.fault(h, event, "error", err.Error())
	case a.Arm != ArmNone:
		s.fault(h, event, a.Arm, fmt.Sprintf("the hook answered '%s' to an observation, which nothing honors", a.Arm))
	}
}

// Commit asks the hooks deciding event (on-task-end, on-task-start) in
// manifest order and returns the first that answers the event's arm; the
// later ones are not asked. A fault or another arm is a
// hook_dispatch_error and counts as none. Observers are the caller's:
// Observe.
func (s *Set) Commit(ctx context.Context, event string, payload any) (name string, a Answer, ok bool) {
	name, a, ok, _ = s.commit(ctx, event, payload, false)
	return name, a, ok
}

// Replace is on-compaction's decision point: the hooks deciding it are
// asked in manifest order and the first answering replace-context wins;
// none passes to the next. A fault — an exit, a timeout, unreadable
// output, another arm — is a hook_dispatch_error and is returned as
// "<hook>: <reason>": the caller ends the attempt, since a compactor that
// failed leaves a conversation known to be over budget.
func (s *Set) Replace(ctx context.Context, payload any) (name string, a Answer, ok bool, err error) {
	return s.commit(ctx, OnCompaction, payload, true)
}

// commit is Commit, and Replace when fatal: a fault stops the asking.
func (s *Set) commit(ctx context.Context, event string, payload any, fatal bool) (string, Answer, bool, error) {
	want := map[string]string{OnTaskEnd: ArmReopen, OnTaskStart: ArmSeedContext, OnCompaction: ArmReplace}[event]
	for _, h := range s.Hooks() {
		if !h.decides(event) {
			continue
		}
		ans, err := h.call(ctx, event, PhaseDecide, payload)
		var f *fault
		reason := ""
		switch {
		case errors.As(err, &f):
			s.fault(h, event, f.arm, f.text)
			reason = f.text
		case err != nil:
			s.fault(h, event, "error", err.Error())
			reason = err.Error()
		case ans.Arm == ArmNone:
		case ans.Arm == want:
			return h.Spec.Name, ans, true, nil
		default:
			reason = fmt.Sprintf("the hook answered '%s', which %s does not honor", ans.Arm, event)
			s.fault(h, event, ans.Arm, reason)
		}
		if fatal && reason != "" {
			return h.Spec.Name, Answer{}, false, fmt.Errorf("%s: %s", h.Spec.Name, reason)
		}
	}
	return "", Answer{}, false, nil
}

// fault writes hook_dispatch_error and the hook's log line.
func (s *Set) fault(h *Hook, event, arm, reason string) {
	if s.write != nil {
		s.write(trace.HookDispatchError{HookName: h.Spec.Name, Event: event, Arm: arm, Reason: reason})
	}
	s.logFault(h, event, reason)
}

// logFault appends one line to the hook's log.
func (s *Set) logFault(h *Hook, event, reason string) {
	h.logLine(fmt.Sprintf("%s %s: %s", time.Now().UTC().Format(time.RFC3339), event, reason))
}

// Close drains every async queue for at most DrainBudget (a hook still
// working then is abandoned: hook_dispatch_error, event drain, arm
// timeout), then ends every hook process.
func (s *Set) Close() {
	if s == nil {
		return
	}
	for _, q := range s.async {
		q.close()
	}
	drained := make(chan struct{})
	go func() { s.wg.Wait(); close(drained) }()
	timer := time.NewTimer(s.drain)
	defer timer.Stop()
	select {
	case <-drained:
	case <-timer.C:
		for h, q := range s.async {
			select {
			case <-q.done:
			default:
				q.abandon()
				s.fault(h, "drain", "timeout", fmt.Sprintf("the hook was still working when the %s drain ended", fmtSecs(s.drain)))
			}
		}
		<-drained // an abandoned worker's call ends with its context
	}
	for _, q := range s.async {
		q.cancel()
	}
	for _, h := range s.hooks {
		h.close()
	}
}
