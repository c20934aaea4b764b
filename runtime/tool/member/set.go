package member

import (
	"slices"
	"sync"
	"time"

	oteltrace "go.opentelemetry.io/otel/trace"

	"github.com/murmur-go/mur/a2a"
	"github.com/murmur-go/mur/a2a/client"
	"github.com/murmur-go/mur/runtime/telemetry"
	"github.com/murmur-go/mur/runtime/tool"
	"github.com/murmur-go/mur/runtime/trace"
)

// call is one call-member call. Its fields after the first block are guarded
// by its set's mu.
type call struct {
	id, member, task string
	turnNode         string // the event id of the turn that made the call: its later records' parent (TRACE-2)
	start, deadline  time.Time
	cl               *client.Client
	span             oteltrace.Span // the call's A2A client span (OTEL-5): every request carries it

	tool.Piece        // Out while its goroutine offers or polls
	memberTask string // the member's task id once held
	offers     int    // offers sent so far
	arrival    int    // arrival order, from 1
	end        ending
	canceled   bool // a CancelTask was sent for memberTask (CALL-9, cascade)
	cascaded   bool // cancel: cascade canceled memberTask (member_call cascade_canceled)
}

// ending is how a call ended (CALL-7, CALL-9, CALL-10).
type ending struct {
	status, output string
	truncated      bool
	below          []a2a.NoAnswerEntry
	at             time.Time
}

// callSet is one task's calls: the tool.Waiter the loop waits on (RND-1..9).
// Its crew owns every goroutine its calls start (crew.Go); Abandon stops
// and waits for them. Each call's end is signalled on the task's state
// (finish). Safe for concurrent use.
type callSet struct {
	cfg  *Config
	ts   *tool.TaskState
	crew tool.Crew

	mu       sync.Mutex
	calls    []*call // creation order
	arrivals int
	standing []standing // RND-5/6, first-recorded order
}

var _ tool.Waiter = (*callSet)(nil)

// setFor returns the task's call set, registering a new one on first use.
// A task's tool calls run one at a time (LOOP-7), so this never races.
func setFor(ts *tool.TaskState, cfg *Config) *callSet {
	for _, w := range ts.Waiters() {
		if s, ok := w.(*callSet); ok {
			return s
		}
	}
	s := &callSet{cfg: cfg, ts: ts}
	ts.AddWaiter(s)
	return s
}

// findSet returns the task's call set, nil when it made no call.
func findSet(ts *tool.TaskState) *callSet {
	for _, w := range ts.Waiters() {
		if s, ok := w.(*callSet); ok {
			return s
		}
	}
	return nil
}

// newCall registers a call being sent.
func (s *callSet) newCall(member, task string) *call {
	now := time.Now()
	c := &call{id: a2a.NewID(a2a.PrefixMemberCall), member: member, task: task, start: now, deadline: now.Add(s.cfg.Deadline)}
	c.turnNode = s.ts.TurnNode()
	s.mu.Lock()
	s.calls = append(s.calls, c)
	s.mu.Unlock()
	return c
}

// unanswered returns the latest call to member (or, for "", any member)
// whose answer has not been delivered, and whether that answer arrived.
func (s *callSet) unanswered(member string) (c *call, arrived bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range slices.Backward(s.calls) {
		if (member == "" || c.member == member) && !c.Accounted {
			return c, c.Ended
		}
	}
	return nil, false
}

// finish ends c with e and signals the task's state, which wakes the loop
// (RND-1); later calls do nothing.
func (s *callSet) finish(c *call, e ending) {
	e.output, e.truncated = tool.Cut64(e.output) // CALL-10, CALL-11
	e.at = time.Now()
	s.mu.Lock()
	if c.Ended {
		s.mu.Unlock()
		return
	}
	c.Ended, c.end = true, e
	s.arrivals++
	c.arrival = s.arrivals
	span, memberTask := c.span, c.memberTask
	s.mu.Unlock()
	if span != nil {
		telemetry.EndMemberCall(span, memberTask, e.status, e.output)
	}
	s.ts.Signal()
}

// account marks c accounted for, updates the standing (RND-5, RND-6) with
// status (abandoned for an answer never delivered, RND-7) and returns its
// member_call record (CALL-11). Caller holds mu.
func (s *callSet) account(c *call, delivered bool, status string) tool.Rec {
	c.Accounted = true
	s.standing = stand(s.standing, c.member, c.id, status, c.end.below)
	return s.memberCallRec(c, delivered)
}

// memberCallRec is CALL-11's member_call record. Caller holds mu.
func (s *callSet) memberCallRec(c *call, delivered bool) tool.Rec {
	return tool.Rec{Record: trace.MemberCall{TaskID: s.ts.ID, CallID: c.id, Member: c.member, MemberTaskID: c.memberTask,
		Status: c.end.status, DurationMS: c.end.at.Sub(c.start).Milliseconds(),
		Output: c.end.output, Truncated: c.end.truncated, Delivered: delivered, CascadeCanceled: c.cascaded}}
}

// write writes a record from c's goroutine (member_call_busy,
// member_call_start) under the turn that made the call, even after later
// turns began (TRACE-2).
func (s *callSet) write(c *call, r tool.Rec) { s.ts.Write(c.turnNode, r) }

func (s *callSet) busyRec(c *call, offer int, message string) tool.Rec {
	return tool.Rec{Record: trace.MemberCallBusy{TaskID: s.ts.ID, CallID: c.id, Member: c.member, Offer: offer,
		WaitedMS: time.Since(c.start).Milliseconds(), Message: message}}
}

func (s *callSet) startRec(c *call, memberTask string) tool.Rec {
	return tool.Rec{Record: trace.MemberCallStart{TaskID: s.ts.ID, CallID: c.id, Member: c.member, MemberTaskID: memberTask}}
}

// Outstanding is how many calls are still out (RND-1).
func (s *callSet) Outstanding() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return tool.Outstanding(s.calls)
}

// Ready reports whether an answer arrived and waits to be delivered.
func (s *callSet) Ready() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return tool.AnyArrived(s.calls)
}

// waiterKind is the call set's kind of work: ids in task_continued's
// member_calls, phase member_call (LOOP-16), answers first in a round (RND-2).
var waiterKind = tool.WorkKind{Field: tool.FieldMemberCalls, Phase: "member_call", Order: 0}

// Kind declares the call set's kind of work.
func (s *callSet) Kind() tool.WorkKind { return waiterKind }

// WaitingText is RND-1's status text; "" when nothing is out.
func (s *callSet) WaitingText() string { return tool.WaitingText(s.Outstanding(), waitingText) }

// arrivedLocked returns the ended, unaccounted calls in arrival order.
func (s *callSet) arrivedLocked() []*call {
	var out []*call
	for _, c := range s.calls {
		if c.Arrived() {
			out = append(out, c)
		}
	}
	slices.SortFunc(out, func(a, b *call) int { return a.arrival - b.arrival })
	return out
}

// Deliver hands every arrived answer to the continuation (RND-2..8).
func (s *callSet) Deliver() tool.Delivery {
	s.mu.Lock()
	defer s.mu.Unlock()
	var d tool.Delivery
	var answers []answer
	for _, c := range s.arrivedLocked() {
		d.Records = append(d.Records, s.account(c, true, c.end.status))
		d.IDs = append(d.IDs, c.id)
		answers = append(answers, answer{callID: c.id, member: c.member, status: c.end.status, output: c.end.output})
	}
	if len(answers) == 0 {
		return d
	}
	d.Blocks, d.Lines = continuationParts(answers, s.standing, s.ts.CallerMember)
	d.StatusText = continuingText(len(answers))
	return d
}

// Abandon accounts for every call when the task ends without waiting (RND-9):
// it stops the calls' goroutines — each ends its call abandoned, waiting up to
// Timing.InFlight for an offer on its way (CALL-9) — then records every
// undelivered answer delivered: false, and sets the task's noAnswerBelow
// (RND-7), where an undelivered answer counts abandoned.
func (s *callSet) Abandon() []tool.Rec {
	s.crew.Stop()
	if s.cfg.Cascade {
		s.cascade()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var recs []tool.Rec
	for _, c := range s.arrivedLocked() {
		recs = append(recs, s.account(c, false, statusAbandoned))
	}
	s.ts.SetNoAnswerBelow(noAnswerBelow(s.standing))
	return recs
}

// isAbandoned reports whether the calling task ended.
func (s *callSet) isAbandoned() bool { return s.crew.Stopped() }
