package tool

import (
	"sync"

	"github.com/murmur-go/mur/a2a"
	"github.com/murmur-go/mur/runtime/trace"
)

// TaskInfo is what a call knows of the task it runs in.
type TaskInfo struct {
	ID string
	// ContextID is the task's context (MURMUR_SPAWNER's context_id, DLG-3).
	ContextID string
	Origin    string // the task's origin (user, peer, completion, …)
	Trust     string // trusted | untrusted: call-member sends it on (CALL-3)
	// CallerMember is the formation member that sent the task, "" when none
	// (EWA-3, CALL-8's end-without-answer sentence).
	CallerMember string
}

// TaskState is the state tools share with the loop for one task; the loop
// makes one per task (NewTaskState) and hands it to every call
// (CallContext.Task). It is the seam for work that answers after the turn
// that started it ends (call-member now; delegate-task and request-input
// later): a tool registers a Waiter for it (AddWaiter), the waiter calls
// Signal whenever a piece of it arrives, and the loop waits on the one
// Changed channel (wait.go). It also carries end-without-answer's mark
// (EWA-2, EWA-4), the task's noAnswerBelow (RND-7), and the one path by
// which tool records reach the trace (Write). Safe for concurrent use.
type TaskState struct {
	TaskInfo
	tr *trace.Writer // nil: records are not written

	mu       sync.Mutex
	waiters  []Waiter
	changed  chan struct{} // closed and replaced by Signal; nil until first asked for
	noAnswer *string
	failure  *Failure
	below    []a2a.NoAnswerEntry
	ending   Ending
	ended    map[string][]string // task_continued field → ids Abandon ended while out
}

// Failure is why a tool ended its task's attempt failed as its call returned
// (request-input's timeout, input.md INP-7): the loop makes no further call
// and ends the attempt with task_failed {cause, reason}.
type Failure struct {
	Cause  string // task_failed.cause, e.g. "input_timeout"
	Reason string // task_failed.reason; out/result.txt says "error: <reason>"
	// Status is the task's final status message when it is not SES-5's
	// "error: <reason>" ("input-timeout", INP-7); "" keeps SES-5's.
	Status string
}

// NewTaskState returns the state of the task info describes; tr is the
// session's trace (nil writes nothing).
func NewTaskState(info TaskInfo, tr *trace.Writer) *TaskState {
	return &TaskState{TaskInfo: info, tr: tr}
}

// AddWaiter registers w; the loop waits on it at the end of every turn that
// ends with a turn left (LOOP-15, RND-1) and has it account for its work at
// any other ending (RND-9). Register once per task per kind of work.
func (ts *TaskState) AddWaiter(w Waiter) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	ts.waiters = append(ts.waiters, w)
}

// Waiters returns the registered waiters, in registration order.
func (ts *TaskState) Waiters() []Waiter {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return append([]Waiter(nil), ts.waiters...)
}

// Signal reports a change in the task's outstanding work: a piece arrived,
// ended or was abandoned. A Waiter calls it, from any goroutine, once the
// change shows in its Outstanding and Ready. It wakes everyone waiting on
// Changed.
func (ts *TaskState) Signal() {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if ts.changed != nil {
		close(ts.changed)
		ts.changed = nil
	}
}

// Changed returns a channel closed at the next Signal. Take it before
// reading the waiters' state, so that no change is missed between the read
// and the wait.
func (ts *TaskState) Changed() <-chan struct{} {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if ts.changed == nil {
		ts.changed = make(chan struct{})
	}
	return ts.changed
}

// TurnNode is the event id of the task's latest turn (its newest agent
// inference record), "" before the first. A tool whose goroutine writes
// records after later turns began takes it at call time and writes under it
// (TRACE-2: member_call_busy, member_call_start).
func (ts *TaskState) TurnNode() string {
	if ts.tr == nil {
		return ""
	}
	return ts.tr.TurnOf(ts.ID)
}

// Write writes r's record under parent, an earlier record's event id, or,
// when parent is "", where TRACE-2 hangs r's type in this task; then it runs
// r.Written with the new event id. It is the one path by which a tool's
// records reach the trace: the loop writes a call's Result.Records and a
// round's records through it, and a tool writes through it from its call
// (plan records) or from its own goroutines (member_call_busy,
// member_call_start). It returns the event id, "" when nothing was written
// (no trace, or the trace failed: the trace reports that itself, E-RUN-007).
func (ts *TaskState) Write(parent string, r Rec) string {
	if ts.tr == nil || r.Record == nil {
		return ""
	}
	id, err := ts.tr.WriteUnder(parent, ts.ID, r.Record)
	if err != nil {
		return ""
	}
	if r.Written != nil {
		r.Written(id)
	}
	return id
}

// EndWithoutAnswer marks the attempt to end with no answer once the turn's
// calls finish (EWA-2, EWA-4). It reports false, changing nothing, when one
// was already accepted.
func (ts *TaskState) EndWithoutAnswer(reason string) bool {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if ts.noAnswer != nil {
		return false
	}
	ts.noAnswer = &reason
	return true
}

// NoAnswer returns the accepted end-without-answer reason.
func (ts *TaskState) NoAnswer() (reason string, ok bool) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if ts.noAnswer == nil {
		return "", false
	}
	return *ts.noAnswer, true
}

// Fail marks the attempt to end failed with f once the running call returns:
// no later call of the turn runs and no inference call follows. It reports
// false, changing nothing, when a failure was already marked.
func (ts *TaskState) Fail(f Failure) bool {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if ts.failure != nil {
		return false
	}
	ts.failure = &f
	return true
}

// Failed returns the failure Fail marked.
func (ts *TaskState) Failed() (Failure, bool) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if ts.failure == nil {
		return Failure{}, false
	}
	return *ts.failure, true
}

// SetNoAnswerBelow records the members this task lacks an answer from, for
// its terminal metadata.murmur.noAnswerBelow (RND-7, door.md TASK-6); the
// call set sets it when it accounts for its calls (Abandon).
func (ts *TaskState) SetNoAnswerBelow(entries []a2a.NoAnswerEntry) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	ts.below = append([]a2a.NoAnswerEntry(nil), entries...)
}

// NoAnswerBelow returns what SetNoAnswerBelow recorded; nil when none.
func (ts *TaskState) NoAnswerBelow() []a2a.NoAnswerEntry {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return append([]a2a.NoAnswerEntry(nil), ts.below...)
}

// Ending is how a task ended without waiting for its outstanding work
// (RND-9), which a waiter's Abandon names (DLG-8's unwaited reasons). The
// loop sets it before Abandon.
type Ending struct {
	Status     string // task_end.exit_status: canceled, failed, ok, …
	NoTurnLeft bool   // the task had no inference turn left to read an outcome
}

// SetEnding records how the task ended, before the loop calls Abandon.
func (ts *TaskState) SetEnding(e Ending) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	ts.ending = e
}

// Ending returns what SetEnding recorded; the zero Ending before.
func (ts *TaskState) Ending() Ending {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return ts.ending
}

// NoteEnded records that Abandon ended a piece of outstanding work, by its
// task_continued field and id: task_canceled.delegation_ids lists the
// delegations a cancel ended (capsule.md LOOP-16).
func (ts *TaskState) NoteEnded(field, id string) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if ts.ended == nil {
		ts.ended = map[string][]string{}
	}
	ts.ended[field] = append(ts.ended[field], id)
}

// EndedIDs returns the ids NoteEnded recorded for field, in order; never nil.
func (ts *TaskState) EndedIDs(field string) []string {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return append([]string{}, ts.ended[field]...)
}
