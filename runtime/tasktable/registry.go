package tasktable

import (
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/murmur-go/mur/a2a"
)

// Lanes in priority order (capsule.md LOOP-4).
const (
	laneUser = iota
	lanePeer
	laneBG
	laneCount
)

func laneOf(o a2a.Origin) int {
	switch o {
	case a2a.OriginUser:
		return laneUser
	case a2a.OriginPeer:
		return lanePeer
	}
	return laneBG
}

// entry is one stored task.
type entry struct {
	task     a2a.Task // current state; History and Metadata kept apart
	history  []a2a.Message
	murmur   *a2a.MurmurTaskMetadata
	prov     Provenance
	caller   Caller
	counted  bool // holds a queue slot while SUBMITTED (completion tasks never do)
	subs     []*Subscription
	run      *Run          // set once Next handed it out
	canceled chan struct{} // closed when a cancel is accepted
	cancelBy string
	asking   bool // INPUT_REQUIRED with a question that takes its one reply (input.md INP-5, INP-6)
}

// Registry is a session's task table. See the package doc.
type Registry struct {
	cfg Config

	mu       sync.Mutex
	tasks    map[a2a.TaskID]*entry
	queue    [laneCount][]*entry
	accepted int  // tasks accepted in this session, launch task included (single)
	waiting  int  // queued entries that hold a slot (counted), for TASK-7's queue_depth
	closing  bool // Close was called: new tasks are refused
	wake     chan struct{}
	pages    map[string]pageCursor
	watch    watchHub
}

// New returns an empty registry.
func New(cfg Config) (*Registry, error) {
	switch cfg.Acceptance {
	case ModeNone, ModeSingle, ModeQueue:
	case "":
		cfg.Acceptance = ModeSingle
	default:
		return nil, fmt.Errorf("task acceptance %q is not none, single or queue", cfg.Acceptance)
	}
	if cfg.Acceptance == ModeQueue && cfg.QueueDepth < 1 {
		cfg.QueueDepth = 1
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Registry{
		cfg:   cfg,
		tasks: map[a2a.TaskID]*entry{},
		wake:  make(chan struct{}, 1), // one pending wake-up is enough: Next rechecks the queue
		pages: map[string]pageCursor{},
		watch: newWatchHub(),
	}, nil
}

// Acceptance is the registry's acceptance mode.
func (r *Registry) Acceptance() Mode { return r.cfg.Acceptance }

func (r *Registry) signal() {
	select {
	case r.wake <- struct{}{}:
	default:
	}
}

func (r *Registry) now() string { return a2a.FormatTime(r.cfg.Now()) }

func (r *Registry) notify(ev Event) {
	if r.cfg.Notify != nil {
		r.cfg.Notify(ev)
	}
}

// visible reports whether caller may see e (door.md AUTH-6).
func visible(e *entry, c Caller) bool {
	return c.Member == "" || e.caller.Member == c.Member
}

// lookup returns the entry id names if caller may see it.
func (r *Registry) lookup(c Caller, id a2a.TaskID) (*entry, error) {
	e, ok := r.tasks[id]
	if !ok || !visible(e, c) {
		return nil, a2a.TaskNotFound(id)
	}
	return e, nil
}

// Send starts a new task or delivers a reply (door.md METH-SM-3). It returns
// the task as it stands, and a Subscription when req.Subscribe is set. A task
// the table has no room for is returned REJECTED and not stored (TASK-5).
// Errors are *a2a.Error.
func (r *Registry) Send(req SendRequest) (a2a.Task, *Subscription, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if req.Message.TaskID != "" {
		return r.reply(req)
	}
	if r.cfg.Acceptance == ModeNone {
		return a2a.Task{}, nil, a2a.MethodNotFound()
	}
	cause := ""
	switch {
	case r.closing:
		cause = "not_accepting"
	case r.cfg.Acceptance == ModeSingle && r.accepted > 0:
		cause = "busy"
	case r.cfg.Acceptance == ModeQueue && r.waiting >= r.cfg.QueueDepth:
		cause = "queue_full"
	}
	if cause != "" {
		t := r.rejected(req.Message, cause)
		r.notify(Event{Kind: EventRejected, Task: t, Prov: req.Prov, Caller: req.Caller, MessageID: req.Message.MessageID, Cause: cause})
		var sub *Subscription
		if req.Subscribe {
			sub = closedSubscription(t)
		}
		return t, sub, nil
	}
	e := r.add(req.Prov, req.Caller, req.Message, true)
	r.notify(Event{Kind: EventReceived, Task: r.snapshot(e, nil, true), Prov: req.Prov, Caller: req.Caller, MessageID: req.Message.MessageID})
	var sub *Subscription
	if req.Subscribe {
		sub = r.subscribe(e)
	}
	return r.snapshot(e, req.HistoryLength, true), sub, nil
}

// rejected builds the unstored REJECTED task for a refused message (TASK-5).
func (r *Registry) rejected(m a2a.Message, cause string) a2a.Task {
	id := a2a.TaskID(a2a.NewID(a2a.PrefixTask))
	ctx := m.ContextID
	if ctx == "" {
		ctx = a2a.ContextID(a2a.NewID(a2a.PrefixContext))
	}
	text := a2a.StatusBusy
	if cause == "not_accepting" {
		text = a2a.StatusClosing
	}
	return a2a.Task{ID: id, ContextID: ctx, Status: a2a.TaskStatus{
		State: a2a.TaskStateRejected, Timestamp: r.now(), Message: statusMessage(id, ctx, text)}}
}

// add stores a new SUBMITTED task and queues it. Caller holds r.mu.
func (r *Registry) add(p Provenance, c Caller, m a2a.Message, counted bool) *entry {
	return r.addAs(a2a.TaskID(a2a.NewID(a2a.PrefixTask)), p, c, m, counted)
}

// addAs is add under the task id id. Caller holds r.mu.
func (r *Registry) addAs(id a2a.TaskID, p Provenance, c Caller, m a2a.Message, counted bool) *entry {
	ctx := m.ContextID
	if ctx == "" {
		ctx = a2a.ContextID(a2a.NewID(a2a.PrefixContext))
	}
	m.TaskID, m.ContextID = id, ctx
	e := &entry{
		task:     a2a.Task{ID: id, ContextID: ctx, Status: a2a.TaskStatus{State: a2a.TaskStateSubmitted, Timestamp: r.now()}},
		history:  []a2a.Message{m},
		prov:     p,
		caller:   c,
		counted:  counted,
		canceled: make(chan struct{}),
	}
	r.tasks[id] = e
	if counted {
		r.accepted++
		r.waiting++
	}
	l := laneOf(p.Origin)
	r.queue[l] = append(r.queue[l], e)
	r.statusFrame(e)
	r.signal()
	return e
}

// reply routes a message naming a task (METH-SM-3). Caller holds r.mu.
func (r *Registry) reply(req SendRequest) (a2a.Task, *Subscription, error) {
	m := req.Message
	e, err := r.lookup(req.Caller, m.TaskID)
	if err != nil {
		return a2a.Task{}, nil, err
	}
	st := e.task.Status.State
	md := map[string]string{"taskId": string(e.task.ID), "state": string(st)}
	switch {
	case st.Terminal():
		return a2a.Task{}, nil, a2a.UnsupportedOperation(
			"Task is already "+string(st)+"; send a new message without taskId in the same contextId", md)
	case st != a2a.TaskStateInputRequired || !e.asking || e.run == nil:
		// A question withdrawn at its timeout (INP-7) waits no more, though
		// the task reads INPUT_REQUIRED until it ends a moment later.
		return a2a.Task{}, nil, a2a.UnsupportedOperation("Task is "+string(st)+" and is not waiting for input", md)
	case m.ContextID != "" && m.ContextID != e.task.ContextID:
		return a2a.Task{}, nil, a2a.InvalidParams("message.contextId does not match the contextId of task " + string(e.task.ID))
	}
	m.ContextID = e.task.ContextID
	e.history = append(e.history, m)
	e.asking = false // one reply per question (INP-6)
	r.setState(e, a2a.TaskStateWorking, "")
	e.run.replies <- Reply{Message: m, Caller: req.Caller, Prov: req.Prov} // never blocks: one slot, one reply per question
	var sub *Subscription
	if req.Subscribe {
		sub = r.subscribe(e)
	}
	return r.snapshot(e, req.HistoryLength, true), sub, nil
}

// Submit stores a task the runtime itself starts: the launch task (origin
// user, source task_md), which counts as an accepted task, or a completion
// task (origin completion), which never counts and is never refused
// (capsule.md LOOP-1). It fails with ErrClosed once the session is closing.
func (r *Registry) Submit(p Provenance, m a2a.Message) (a2a.Task, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closing {
		return a2a.Task{}, ErrClosed
	}
	e := r.add(p, Caller{}, m, p.Origin != a2a.OriginCompletion)
	return r.snapshot(e, nil, true), nil
}

// Restore stores a task an earlier session of the capsule left unfinished
// under its own id and context (m's contextId), to be run again: it counts
// as an accepted task, as Submit's launch task does. It fails with ErrClosed
// once the session is closing, and when id is already in the table.
func (r *Registry) Restore(id a2a.TaskID, p Provenance, c Caller, m a2a.Message) (a2a.Task, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closing {
		return a2a.Task{}, ErrClosed
	}
	if _, ok := r.tasks[id]; ok {
		return a2a.Task{}, fmt.Errorf("task %s is already in the table", id)
	}
	e := r.addAs(id, p, c, m, true)
	return r.snapshot(e, nil, true), nil
}

// Get returns the task id names as caller may see it (door.md METH-GT-1).
// historyLength < 0 is -32602.
func (r *Registry) Get(c Caller, id a2a.TaskID, historyLength *int) (a2a.Task, error) {
	if historyLength != nil && *historyLength < 0 {
		return a2a.Task{}, a2a.InvalidParams("historyLength must not be negative")
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	e, err := r.lookup(c, id)
	if err != nil {
		return a2a.Task{}, err
	}
	return r.snapshot(e, historyLength, true), nil
}

// Cancel cancels a live task (door.md METH-CT-1): CANCELED is recorded at
// once and the running task's Canceled channel closes. An ended task is
// -32002, an unknown or invisible one -32001.
func (r *Registry) Cancel(c Caller, id a2a.TaskID) (a2a.Task, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	e, err := r.lookup(c, id)
	if err != nil {
		return a2a.Task{}, err
	}
	if e.task.Status.State.Terminal() {
		return a2a.Task{}, a2a.TaskNotCancelable(id, e.task.Status.State)
	}
	r.cancel(e, "CancelTask")
	return r.snapshot(e, nil, true), nil
}

// CancelRun cancels a live task for the runtime's own reason by — "SIGTERM",
// "deadline", "formation ended" (capsule.md SES-5). It reports whether the
// task was live.
func (r *Registry) CancelRun(id a2a.TaskID, by string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	e, ok := r.tasks[id]
	if !ok || e.task.Status.State.Terminal() {
		return false
	}
	r.cancel(e, by)
	return true
}

// StopAll cancels every live task as CancelTask would, each for
// "session/stop", and returns the ids it moved, sorted (door.md METH-STOP-1).
func (r *Registry) StopAll() []a2a.TaskID {
	r.mu.Lock()
	defer r.mu.Unlock()
	ids := []a2a.TaskID{}
	for id, e := range r.tasks {
		if !e.task.Status.State.Terminal() {
			r.cancel(e, "session/stop")
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	return ids
}

// cancel moves a live entry to CANCELED. Caller holds r.mu.
func (r *Registry) cancel(e *entry, by string) {
	e.cancelBy = by
	close(e.canceled)
	if e.task.Status.State == a2a.TaskStateSubmitted {
		r.dequeue(e)
		r.setState(e, a2a.TaskStateCanceled, a2a.StatusCanceledBeforeRun)
		r.notify(Event{Kind: EventCanceledQueued, Task: r.snapshot(e, nil, true), Prov: e.prov, Caller: e.caller, Cause: by})
		r.signal()
		return
	}
	r.setState(e, a2a.TaskStateCanceled, "canceled: "+by)
}

// dequeue removes a SUBMITTED entry from its lane. Caller holds r.mu.
func (r *Registry) dequeue(e *entry) {
	l := laneOf(e.prov.Origin)
	r.queue[l] = slices.DeleteFunc(r.queue[l], func(x *entry) bool { return x == e })
	r.left(e)
}

// left accounts for an entry leaving the queue. Caller holds r.mu.
func (r *Registry) left(e *entry) {
	if e.counted {
		r.waiting--
	}
}

// Close starts the session's closing (door.md TASK-3, TASK-7; capsule.md
// SES-8): every new task is refused with "the session is closing", and every
// SUBMITTED task is rejected — "…was stopped before this task started" when
// stopped (a signal), "…ended before this task started" otherwise. It returns
// the rejected tasks; Next returns ErrClosed once nothing is left to run.
func (r *Registry) Close(stopped bool) []a2a.Task {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.closing = true
	text := a2a.StatusEndedBeforeStart
	if stopped {
		text = a2a.StatusStoppedBeforeStart
	}
	var out []a2a.Task
	for l := range r.queue {
		for _, e := range r.queue[l] {
			r.setState(e, a2a.TaskStateRejected, text)
			t := r.snapshot(e, nil, true)
			out = append(out, t)
			r.notify(Event{Kind: EventRejectedQueued, Task: t, Prov: e.prov, Caller: e.caller, Cause: "session_ended"})
		}
		r.queue[l] = nil
	}
	r.waiting = 0
	r.signal()
	return out
}

// Closing reports whether Close was called.
func (r *Registry) Closing() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.closing
}

// Counts returns how many stored tasks are in each state (for metrics).
func (r *Registry) Counts() map[a2a.TaskState]int {
	r.mu.Lock()
	defer r.mu.Unlock()
	m := map[a2a.TaskState]int{}
	for _, e := range r.tasks {
		m[e.task.Status.State]++
	}
	return m
}

// statusMessage is the agent message a status carries (door.md TASK-4).
func statusMessage(id a2a.TaskID, ctx a2a.ContextID, text string) *a2a.Message {
	return &a2a.Message{MessageID: "msg_" + string(id) + "_status", ContextID: ctx, TaskID: id,
		Role: a2a.RoleAgent, Parts: []a2a.Part{a2a.TextPart(text)}}
}

// setState records a state change, tells subscribers and watchers. A state's
// status text is an agent message, which joins the history. Caller holds r.mu.
func (r *Registry) setState(e *entry, s a2a.TaskState, text string) {
	e.task.Status = a2a.TaskStatus{State: s, Timestamp: r.now()}
	if text != "" {
		e.task.Status.Message = statusMessage(e.task.ID, e.task.ContextID, text)
		r.remember(e, text)
	}
	r.publishStatus(e)
}

// remember appends an agent message of text to the task's history (door.md
// TASK-4): its messageId is msg_<task id>_<its position in the history>, so
// that no two messages of a history share one. Caller holds r.mu.
func (r *Registry) remember(e *entry, text string) {
	e.history = append(e.history, a2a.Message{MessageID: fmt.Sprintf("msg_%s_%d", e.task.ID, len(e.history)),
		ContextID: e.task.ContextID, TaskID: e.task.ID, Role: a2a.RoleAgent, Parts: []a2a.Part{a2a.TextPart(text)}})
}

// snapshot copies an entry as the wire shows it (TASK-4): history only for
// historyLength > 0, artifacts when withArtifacts. Caller holds r.mu.
func (r *Registry) snapshot(e *entry, historyLength *int, withArtifacts bool) a2a.Task {
	t := e.task
	t.Artifacts = nil
	if withArtifacts && len(e.task.Artifacts) > 0 {
		t.Artifacts = slices.Clone(e.task.Artifacts)
	}
	if historyLength != nil && *historyLength > 0 {
		h := e.history
		if len(h) > *historyLength {
			h = h[len(h)-*historyLength:]
		}
		t.History = slices.Clone(h)
	}
	t.Metadata = nil
	if !e.murmur.Empty() {
		a2a.SetMurmurMetadata(&t, e.murmur)
	}
	if e.task.Status.Message != nil {
		m := *e.task.Status.Message
		t.Status.Message = &m
	}
	return t
}
