package tool

import (
	"sync"

	"github.com/murmur-go/mur/a2a"
	"github.com/murmur-go/mur/runtime/trace"
)

// TaskState is what tools know of the task a call runs in; the loop makes one
// per task and hands it to every call (CallContext.Task). It is the seam
// call-member, end-without-answer (tools.md §10–§12) and delegate-task build
// on: they register Waiters for work that answers after the turn ends, and
// end-without-answer marks the attempt to end with no answer. Safe for
// concurrent use.
type TaskState struct {
	ID     string
	Origin string // the task's origin (user, peer, completion, …)
	Trust  string // trusted | untrusted: call-member sends it on (CALL-3)
	// CallerMember is the formation member that sent the task, "" when none
	// (EWA-3, CALL-8's end-without-answer sentence).
	CallerMember string
	// Trace is the session's trace, for records a tool writes on its own
	// goroutines (member_call_busy, member_call_start).
	Trace *trace.Writer

	mu       sync.Mutex
	waiters  []Waiter
	noAnswer *string
	below    []a2a.NoAnswerEntry
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

// Waiter is one kind of a task's outstanding work whose outcomes reach the
// model after the turn ends (tools.md RND; call-member, delegate-task).
type Waiter interface {
	// Outstanding is how many pieces are still out (not yet arrived).
	Outstanding() int
	// Changed returns a channel closed at the next change of Outstanding or
	// of Ready; call it again for the change after that.
	Changed() <-chan struct{}
	// Ready reports whether an arrived outcome waits to be delivered.
	Ready() bool
	// WaitingText is this waiter's part of RND-1's status text, e.g.
	// "waiting on call-member: 2 call(s) outstanding"; "" when nothing is out.
	WaitingText() string
	// Deliver hands over every arrived, undelivered outcome (RND-2): the
	// continuation text, the task_continued field it fills, the records to
	// write before task_continued (member_call), and its part of the
	// "continuing with …" status text.
	Deliver() Delivery
	// Abandon accounts for every piece when the task ends without waiting
	// (RND-9: outstanding → abandoned, arrived → delivered: false) and returns
	// the records to write before task_end.
	Abandon() []Rec
}

// Delivery is what one Waiter hands to a continuation (RND-2).
type Delivery struct {
	Text       string   // the blocks and runtime lines, already fenced (RND-4..8)
	Field      string   // task_continued's field: "member_calls" or "delegations"
	IDs        []string // ids delivered, in the field's order
	Records    []Rec    // written before task_continued (parent: task)
	StatusText string   // e.g. "continuing with 2 member answer(s)"
}
