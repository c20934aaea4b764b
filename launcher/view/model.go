package view

import (
	"encoding/json"
	"slices"
	"sync"
)

// model is what the view knows: members, calls and tasks, built from the
// trace records and stream/watch frames applied to it. Every change marks
// the object dirty; flush turns the dirty objects into events for the hub.
// Safe for concurrent use: the poller, each door's watcher and the HTTP
// handlers share it under mu.
type model struct {
	mu   sync.Mutex
	kind Kind
	id   string
	live bool

	members     map[string]*memberState // by member name
	memberOrder []string                // first seen first
	calls       map[string]*Call        // by call id
	callOrder   []string
	tasks       map[string]*taskState // by member + "/" + task id
	taskOrder   []string

	dirtyMembers map[string]bool
	dirtyCalls   map[string]bool
	dirtyTasks   map[string]bool
	dirtyStatus  bool
	changed      chan struct{} // one pending wake-up for the flusher is enough

	hub hub
}

// memberState is a Member and what the view holds about its session.
type memberState struct {
	Member
	doorUp bool // its running record was seen: its door serves (SES-6)
	ended  bool
}

// taskState is a Task and where its records sit in its member's trace.
type taskState struct {
	Task
	trace string // the member's trace.jsonl
	refs  []ref  // its records, in file order
	last  int64  // timestamp of its latest record
}

// ref locates one trace line.
type ref struct {
	off int64
	n   int
}

func newModel(kind Kind, id string) *model {
	return &model{
		kind: kind, id: id, live: true,
		members: map[string]*memberState{}, calls: map[string]*Call{}, tasks: map[string]*taskState{},
		dirtyMembers: map[string]bool{}, dirtyCalls: map[string]bool{}, dirtyTasks: map[string]bool{},
		changed: make(chan struct{}, 1),
		hub:     newHub(),
	}
}

// wake tells the flusher something changed. Caller holds mu.
func (m *model) wake() {
	select {
	case m.changed <- struct{}{}:
	default:
	}
}

// member returns the member named name, making it (starting) if new. Caller holds mu.
func (m *model) member(name string) *memberState {
	ms, ok := m.members[name]
	if !ok {
		ms = &memberState{Member: Member{Name: name, State: MemberStarting, Callees: []string{}}}
		m.members[name] = ms
		m.memberOrder = append(m.memberOrder, name)
		m.touchMember(name)
	}
	return ms
}

// touchMember marks a member changed and recomputes its state. Caller holds mu.
func (m *model) touchMember(name string) {
	ms := m.members[name]
	if ms == nil {
		return
	}
	ms.State = memberStateOf(ms)
	if ms.LiveTasks == 0 || ms.ended {
		ms.Status = "" // a status message speaks of a live task
	}
	m.dirtyMembers[name] = true
	m.wake()
}

// memberStateOf derives a member's state from its session and tasks.
func memberStateOf(ms *memberState) string {
	switch {
	case ms.ended:
		return MemberEnded
	case ms.LiveTasks > 0:
		return MemberWorking
	case ms.SessionID == "" || !ms.doorUp && ms.Tasks == 0:
		return MemberStarting
	case ms.Tasks > 0:
		return MemberIdle
	}
	return MemberReady
}

func taskKey(member, id string) string { return member + "/" + id }

// task returns member's task id, making it if new. Caller holds mu.
func (m *model) task(member, id, trace string, at int64) *taskState {
	k := taskKey(member, id)
	t, ok := m.tasks[k]
	if !ok {
		t = &taskState{Task: Task{Member: member, ID: id, At: at, History: []Step{}}, trace: trace}
		m.tasks[k] = t
		m.taskOrder = append(m.taskOrder, k)
		ms := m.member(member)
		ms.Tasks++
		m.touchMember(member)
	}
	m.dirtyTasks[k] = true
	m.wake()
	return t
}

// setTaskState moves a task to state at time at: a terminal state is final,
// and a task never goes back to submitted; a repeat only updates the note.
// Caller holds mu.
func (m *model) setTaskState(t *taskState, state string, at int64, note string) {
	switch {
	case terminal(t.State), state == t.State, state == "submitted" && t.State != "":
		return
	}
	wasLive := t.State != "" && !terminal(t.State)
	t.State = state
	t.History = append(t.History, Step{State: state, At: at, Note: note})
	isLive := !terminal(state)
	if !isLive {
		t.Status = ""
	}
	if wasLive != isLive {
		ms := m.member(t.Member)
		if isLive {
			ms.LiveTasks++
		} else {
			ms.LiveTasks--
		}
		m.touchMember(t.Member)
	}
	m.dirtyTasks[taskKey(t.Member, t.ID)] = true
	m.wake()
}

// terminal reports whether a murmur state word is terminal (door.md TASK-2).
func terminal(state string) bool {
	switch state {
	case "completed", "failed", "canceled", "rejected":
		return true
	}
	return false
}

// call returns call id, making it if new. Caller holds mu.
func (m *model) call(id, from, to, taskID string, at int64) *Call {
	c, ok := m.calls[id]
	if !ok {
		c = &Call{ID: id, From: from, To: to, TaskID: taskID, At: at, History: []Step{}}
		m.calls[id] = c
		m.callOrder = append(m.callOrder, id)
	}
	m.dirtyCalls[id] = true
	m.wake()
	return c
}

// setCallState moves a call to state unless it already ended, and
// publishes it. Caller holds mu.
func (m *model) setCallState(c *Call, state string, at int64, note string) {
	if c.State != "" && c.State != "busy" && c.State != "started" {
		return // ended: its member_call record is the last word (CALL-11)
	}
	c.State = state
	c.History = append(c.History, Step{State: state, At: at, Note: note})
	// Published at once, not at the next flush: every state a call enters
	// reaches the page as its own event, however soon the next one follows.
	m.hub.publish([][]byte{event("call", *c)})
	delete(m.dirtyCalls, c.ID)
}

// setLive records whether anything may still run. Caller holds mu.
func (m *model) setLive(live bool) {
	if m.live != live {
		m.live = live
		m.dirtyStatus = true
		m.wake()
	}
}

// snapshot is the whole picture. Caller holds mu.
func (m *model) snapshot() Snapshot {
	s := Snapshot{Kind: m.kind, ID: m.id, Live: m.live, Members: []Member{}, Calls: []Call{}, Tasks: []Task{}}
	for _, n := range m.memberOrder {
		s.Members = append(s.Members, cloneMember(m.members[n].Member))
	}
	for _, id := range m.callOrder {
		s.Calls = append(s.Calls, cloneCall(*m.calls[id]))
	}
	for _, k := range m.taskOrder {
		s.Tasks = append(s.Tasks, cloneTask(m.tasks[k].Task))
	}
	return s
}

func cloneMember(x Member) Member { x.Callees = append([]string{}, x.Callees...); return x }
func cloneCall(x Call) Call       { x.History = slices.Clone(x.History); return x }
func cloneTask(x Task) Task       { x.History = slices.Clone(x.History); return x }

// flush publishes an event per dirty object, members first (a call's arrow
// needs both its nodes), then tasks, then calls, and the view's status.
func (m *model) flush() {
	m.mu.Lock()
	defer m.mu.Unlock()
	var evs [][]byte
	for _, n := range m.memberOrder {
		if m.dirtyMembers[n] {
			evs = append(evs, event("member", m.members[n].Member))
		}
	}
	for _, k := range m.taskOrder {
		if m.dirtyTasks[k] {
			evs = append(evs, event("task", m.tasks[k].Task))
		}
	}
	for _, id := range m.callOrder {
		if m.dirtyCalls[id] {
			evs = append(evs, event("call", *m.calls[id]))
		}
	}
	if m.dirtyStatus {
		evs = append(evs, event("status", Status{Live: m.live}))
	}
	clear(m.dirtyMembers)
	clear(m.dirtyTasks)
	clear(m.dirtyCalls)
	m.dirtyStatus = false
	m.hub.publish(evs)
}

// subscribe returns the snapshot event and a subscription to every event
// after it, atomically: no change falls between them.
func (m *model) subscribe() ([]byte, *sub) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return event("snapshot", m.snapshot()), m.hub.add()
}

func (m *model) unsubscribe(s *sub) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.hub.remove(s)
}

// event encodes one server-sent event (an event line, one data line, a
// blank line). The wire types marshal without error.
func event(name string, v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic("view: marshal " + name + ": " + err.Error()) // programmer error: the wire types always marshal
	}
	out := make([]byte, 0, len(b)+len(name)+16)
	out = append(out, "event: "...)
	out = append(out, name...)
	out = append(out, "\ndata: "...)
	out = append(out, b...)
	return append(out, "\n\n"...)
}
