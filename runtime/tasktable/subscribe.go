package tasktable

import (
	"slices"

	"github.com/murmur-go/mur/a2a"
)

// Subscription is one A2A stream's view of one task (door.md SSE-2, SSE-3,
// METH-ST-2): a task event first, then its status and artifact updates,
// ending after a terminal or INPUT_REQUIRED status update.
type Subscription struct {
	r      *Registry // nil for a subscription that was closed at birth
	e      *entry
	events chan a2a.StreamResponse
	lagged bool
	done   bool // events is closed
}

// subscriptionBuffer is how many events a subscriber may fall behind before it
// is cut off (SSE-5: more than 128 behind is closed), plus the first task event.
const subscriptionBuffer = a2a.StreamLagLimit + 1

// Events delivers the stream's events in generation order; it is closed after
// the last one, after Close, or when the reader fell more than 128 behind
// (Lagged then reports true).
func (s *Subscription) Events() <-chan a2a.StreamResponse { return s.events }

// Lagged reports whether the stream was cut because its reader fell behind.
func (s *Subscription) Lagged() bool {
	if s.r == nil {
		return false
	}
	s.r.mu.Lock()
	defer s.r.mu.Unlock()
	return s.lagged
}

// Close ends the subscription; it affects no other subscriber. Idempotent.
func (s *Subscription) Close() {
	if s.r == nil {
		return
	}
	s.r.mu.Lock()
	defer s.r.mu.Unlock()
	s.end()
}

// end closes the channel and detaches. Caller holds r.mu.
func (s *Subscription) end() {
	if s.done {
		return
	}
	s.done = true
	close(s.events)
	s.e.subs = slices.DeleteFunc(s.e.subs, func(x *Subscription) bool { return x == s })
}

// closedSubscription is a stream of one task event, already ended (a task
// refused for room is streamed as one REJECTED task event, METH-SS-1).
func closedSubscription(t a2a.Task) *Subscription {
	s := &Subscription{events: make(chan a2a.StreamResponse, 1), done: true}
	s.events <- a2a.StreamResponse{Task: &t}
	close(s.events)
	return s
}

// Subscribe opens a stream on a live task (door.md METH-ST-1): unknown or
// invisible → -32001; an ended task → -32004 naming its state.
func (r *Registry) Subscribe(c Caller, id a2a.TaskID) (*Subscription, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	e, err := r.lookup(c, id)
	if err != nil {
		return nil, err
	}
	if st := e.task.Status.State; st.Terminal() {
		return nil, a2a.UnsupportedOperation("Task is already "+string(st)+"; there are no updates to subscribe to",
			map[string]string{"taskId": string(id), "state": string(st)})
	}
	return r.subscribe(e), nil
}

// subscribe opens a subscription whose first event is the task now; it
// ends after the task's next terminal or INPUT_REQUIRED statusUpdate (door.md
// METH-ST-2, METH-SS-2), so a task already waiting for input keeps it open
// until its reply moves it on or it ends. Caller holds r.mu.
func (r *Registry) subscribe(e *entry) *Subscription {
	s := &Subscription{r: r, e: e, events: make(chan a2a.StreamResponse, subscriptionBuffer)}
	t := r.snapshot(e, nil, true)
	s.events <- a2a.StreamResponse{Task: &t}
	if e.task.Status.State.Terminal() {
		s.done = true
		close(s.events)
		return s
	}
	e.subs = append(e.subs, s)
	return s
}

// publish hands ev to every subscriber of e without blocking; one that is
// full is cut off as lagged. final ends every subscription after ev.
// Caller holds r.mu.
func (r *Registry) publish(e *entry, ev a2a.StreamResponse, final bool) {
	for _, s := range slices.Clone(e.subs) {
		select {
		case s.events <- ev:
		default:
			s.lagged = true
			s.end()
			continue
		}
		if final {
			s.end()
		}
	}
}

// publishStatus streams e's current status as a statusUpdate and a watch
// status frame. Caller holds r.mu.
func (r *Registry) publishStatus(e *entry) {
	st := e.task.Status
	if st.Message != nil {
		m := *st.Message
		st.Message = &m
	}
	final := st.State.Terminal() || st.State == a2a.TaskStateInputRequired
	r.publish(e, a2a.StreamResponse{StatusUpdate: &a2a.TaskStatusUpdateEvent{
		TaskID: e.task.ID, ContextID: e.task.ContextID, Status: st}}, final)
	r.statusFrame(e)
}
