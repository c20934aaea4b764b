package view

import (
	"fmt"
	"slices"
	"strings"

	"github.com/murmur-go/mur/runtime/trace"
)

// session is one member session the view follows: its trace and, while it
// runs, its running record. Owned by the poller; name and ended are also
// read under model.mu.
type session struct {
	id      string // ses_…
	trace   string // its trace.jsonl
	tail    tail
	name    string // the member's name, once session_start is read
	entry   bool   // the formation's entry member
	ended   bool   // session_end was read, or its process is gone
	started bool   // session_start was read
	doorUp  bool   // its running record is there: its door serves
}

// setDoor records whether session s's running record is there, and reports
// whether it just went away.
func (m *model) setDoor(s *session, up bool) (wentAway bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if s.doorUp == up {
		return false
	}
	s.doorUp = up
	if s.started {
		m.member(s.name).doorUp = up
		m.touchMember(s.name)
	}
	return !up
}

// markGone ends a session whose process is gone: with the exit status its
// session_end gave, or "no session_end" when it wrote none.
func (m *model) markGone(s *session) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if s.ended {
		return
	}
	s.ended = true
	if !s.started {
		return
	}
	ms := m.member(s.name)
	ms.ended = true
	if ms.Exit == "" {
		ms.Exit = "no session_end"
	}
	m.touchMember(s.name)
}

// apply folds a session's new trace records into the model, in file order.
func (m *model) apply(s *session, recs []*record) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, r := range recs {
		m.applyOne(s, r)
	}
}

func (m *model) applyOne(s *session, r *record) {
	if ss, ok := r.body.(trace.SessionStart); ok {
		m.applyStart(s, ss)
		return
	}
	if !s.started {
		return // TRACE-1: session_start comes first; anything before it is not this session's
	}
	name, at := s.name, r.Timestamp
	if id := r.taskID(); id != "" {
		t := m.task(name, id, s.trace, at)
		t.refs = append(t.refs, ref{r.off, r.n})
		t.Records = len(t.refs)
		t.last = at
	}
	switch b := r.body.(type) {
	case trace.SessionEnd:
		s.ended = true
		ms := m.member(name)
		ms.ended, ms.Exit = true, b.ExitStatus
		m.touchMember(name)
	case trace.A2ATaskReceived:
		t := m.task(name, b.TaskID, s.trace, at)
		m.linkCaller(t, b.CallerMember, callOfMessage(b.MessageID))
		m.setTaskState(t, "submitted", at, "")
	case trace.TaskStart:
		t := m.task(name, b.TaskID, s.trace, at)
		m.linkCaller(t, b.CallerMember, "")
		t.Source = b.Source
		m.setTaskState(t, "working", at, "")
	case trace.Inference:
		t := m.task(name, b.TaskID, s.trace, at)
		t.Turns = max(t.Turns, int64(b.Turn)+1)
		t.InputTokens += b.InputTokens
		t.OutputTokens += b.OutputTokens
	case trace.MemberCallBusy:
		c := m.call(b.CallID, name, b.Member, b.TaskID, at)
		c.Offers = max(c.Offers, b.Offer)
		m.setCallState(c, "busy", at, fmt.Sprintf("offer %d refused: %s", b.Offer, b.Message))
	case trace.MemberCallStart:
		c := m.call(b.CallID, name, b.Member, b.TaskID, at)
		c.MemberTaskID = b.MemberTaskID
		m.setCallState(c, "started", at, "")
		if t, ok := m.tasks[taskKey(b.Member, b.MemberTaskID)]; ok {
			m.linkCaller(t, name, b.CallID)
		}
	case trace.MemberCall:
		c := m.call(b.CallID, name, b.Member, b.TaskID, at)
		if b.MemberTaskID != "" {
			c.MemberTaskID = b.MemberTaskID
		}
		d := b.DurationMS
		c.DurationMS = &d
		note := ""
		if !b.Delivered {
			note = "not delivered"
		}
		m.setCallState(c, b.Status, at, note)
	case trace.TaskRejected:
		t := m.task(name, b.TaskID, s.trace, at)
		m.setTaskState(t, "rejected", at, b.Cause)
	case trace.TaskEnd:
		t := m.task(name, b.TaskID, s.trace, at)
		t.Exit, t.Turns, t.InputTokens, t.OutputTokens = b.ExitStatus, int64(b.Turns), b.InputTokens, b.OutputTokens
		note := b.ExitStatus
		if note == "ok" {
			note = ""
		}
		m.setTaskState(t, stateOfExit(b.ExitStatus), at, note)
	}
}

// applyStart names the session's member from session_start (TRC-1): its
// formation_member, or its capsule's name outside a formation.
func (m *model) applyStart(s *session, ss trace.SessionStart) {
	if s.started {
		return // TRACE-4: one per session; the first counts
	}
	s.started = true
	s.name = ss.FormationMember
	if s.name == "" {
		s.name = ss.CapsuleName
	}
	ms := m.member(s.name)
	ms.SessionID, ms.Capsule, ms.Version, ms.Entry, ms.doorUp = s.id, ss.CapsuleName, ss.CapsuleVersion, s.entry, s.doorUp
	ms.Callees = make([]string, len(ss.FormationCallees))
	copy(ms.Callees, ss.FormationCallees)
	if s.entry {
		m.memberOrder = append([]string{s.name}, slices.DeleteFunc(m.memberOrder, func(n string) bool { return n == s.name })...)
	}
	for _, c := range ms.Callees {
		m.member(c) // a callee not started yet shows as starting
	}
	m.touchMember(s.name)
}

// linkCaller records who sent a task and with which call, and the call's
// member task. Caller holds mu.
func (m *model) linkCaller(t *taskState, caller, callID string) {
	if caller != "" && t.Caller == "" {
		t.Caller = caller
	}
	if callID != "" && t.CallID == "" {
		t.CallID = callID
		if c, ok := m.calls[callID]; ok && c.MemberTaskID == "" {
			c.MemberTaskID = t.ID
			m.dirtyCalls[callID] = true
		}
	}
	m.dirtyTasks[taskKey(t.Member, t.ID)] = true
	m.wake()
}

// callOfMessage returns the call id of a call-member message id
// (msg_<call_id>, tools.md CALL-3), or "".
func callOfMessage(messageID string) string {
	if id, ok := strings.CutPrefix(messageID, "msg_"); ok && strings.HasPrefix(id, "mcl_") {
		return id
	}
	return ""
}

// stateOfExit maps task_end's exit_status (capsule.md LOOP-5) to the A2A
// state the task ended in (door.md TASK-2).
func stateOfExit(exit string) string {
	switch exit {
	case "ok":
		return "completed"
	case "canceled":
		return "canceled"
	}
	return "failed" // failed, no_answer, max_turns_reached, spend_ceiling_reached, reopen_budget_exhausted
}
