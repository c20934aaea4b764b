package delegate

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/murmur-go/mur/runtime/spawn"
	"github.com/murmur-go/mur/runtime/tool"
	"github.com/murmur-go/mur/runtime/trace"
	"github.com/murmur-go/mur/runtime/wire"
)

// delegation is one delegate-task call. Its fields after the first block
// are guarded by its set's mu.
type delegation struct {
	id, capsule, version string
	turnNode             string // the turn that made the call: its records' parent (TRACE-2)
	start                time.Time
	child                *spawn.Child

	tool.Piece // Out once started: its goroutine waits for the outcome
	outcome    spawn.Outcome
	reason     string // the delegation record's reason, "" for none
}

// set is one task's delegations: the tool.Waiter the loop waits on beside
// member calls (RND-1..3, DLG-8). Its crew owns one goroutine per started
// delegation; Abandon stops and waits for them. Safe for concurrent use.
type set struct {
	cfg  *Config
	ts   *tool.TaskState
	crew tool.Crew

	mu   sync.Mutex
	dels []*delegation // creation order: id order (UUIDv7)
}

var _ tool.Waiter = (*set)(nil)

// setFor returns the task's set, registering a new one on first use; a
// task's tool calls run one at a time (LOOP-7), so this never races.
func setFor(ts *tool.TaskState, cfg *Config) *set {
	for _, w := range ts.Waiters() {
		if s, ok := w.(*set); ok {
			return s
		}
	}
	s := &set{cfg: cfg, ts: ts}
	ts.AddWaiter(s)
	return s
}

// newDelegation registers a delegation being launched.
func (s *set) newDelegation(capsule, version string) *delegation {
	d := &delegation{id: newID(), capsule: capsule, version: version, turnNode: s.ts.TurnNode(), start: time.Now()}
	s.mu.Lock()
	s.dels = append(s.dels, d)
	s.mu.Unlock()
	return d
}

// drop forgets a delegation that ended in its call (refused or failed): its
// record follows its tool_call.
func (s *set) drop(d *delegation) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.dels = slices.DeleteFunc(s.dels, func(x *delegation) bool { return x == d })
}

// started marks d outstanding and starts its goroutine, with a context that
// ends at Abandon (the delegating task ended), not with the tool call.
func (s *set) started(ctx context.Context, d *delegation, c *spawn.Child) {
	s.mu.Lock()
	d.child, d.Out = c, true
	s.mu.Unlock()
	s.crew.Go(ctx, func(gctx context.Context) { s.watch(gctx, d) })
}

// watch waits for d's outcome, its deadline from the child's ready line
// (DLG-5: the child ended, terminated) or the task's end (the child ended
// with DLG-8's unwaited reason), then signals the task's state.
func (s *set) watch(ctx context.Context, d *delegation) {
	c := d.child
	deadline := time.NewTimer(time.Until(c.Ready.Add(s.cfg.Deadline)))
	defer deadline.Stop()
	reason := ""
	select {
	case <-c.Done():
	case <-deadline.C:
		reason = deadlineReason(int(s.cfg.Deadline / time.Second))
		c.Terminate(reason)
	case <-ctx.Done():
		reason = unwaitedReason(s.ts.Ending())
		c.Terminate(reason)
		s.ts.NoteEnded(tool.FieldDelegations, d.id)
	}
	o := c.Outcome()
	if o.Status != wire.StatusTerminated {
		reason = o.Reason // the child's own report ("") or the parent's reading of it
	} else if o.Reason != "" {
		reason = o.Reason // terminated by another path first (the session ending)
	}
	s.mu.Lock()
	d.Ended, d.outcome, d.reason = true, o, reason
	s.mu.Unlock()
	s.ts.Signal()
}

// Outstanding is how many delegations are still out (RND-1).
func (s *set) Outstanding() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return tool.Outstanding(s.dels)
}

// Ready reports whether an outcome arrived and waits to be delivered.
func (s *set) Ready() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return tool.AnyArrived(s.dels)
}

// waiterKind is the set's kind of work: ids in task_continued's
// delegations, phase delegation (LOOP-16), after member answers in a round
// (RND-2).
var waiterKind = tool.WorkKind{Field: tool.FieldDelegations, Phase: "delegation", Order: 1}

// Kind declares the set's kind of work.
func (s *set) Kind() tool.WorkKind { return waiterKind }

// WaitingText is RND-1's status part; "" when nothing is out.
func (s *set) WaitingText() string { return tool.WaitingText(s.Outstanding(), waitingText) }

// Deliver hands every arrived outcome to the continuation, in id order
// (RND-2, DLG-8), each with its delegation record.
func (s *set) Deliver() tool.Delivery {
	s.mu.Lock()
	defer s.mu.Unlock()
	var dv tool.Delivery
	for _, d := range s.dels {
		if !d.Arrived() {
			continue
		}
		d.Accounted = true
		dv.Blocks = append(dv.Blocks, block(d.id, d.capsule, d.version, d.outcome))
		dv.IDs = append(dv.IDs, d.id)
		dv.Records = append(dv.Records, s.record(d))
	}
	if len(dv.IDs) > 0 {
		dv.StatusText = continuingText(len(dv.IDs))
	}
	return dv
}

// Abandon ends every delegation still out as the task ends without waiting
// (RND-9, DLG-8: each child is ended, with the unwaited reason), waits for
// their goroutines, and returns the records of every outcome not delivered.
func (s *set) Abandon() []tool.Rec {
	s.crew.Stop()
	s.mu.Lock()
	defer s.mu.Unlock()
	why := unwaitedReason(s.ts.Ending())
	var recs []tool.Rec
	for _, d := range s.dels {
		if !d.Arrived() {
			continue
		}
		d.Accounted = true
		if d.reason == "" {
			d.reason = why // arrived, never read: say why
		}
		recs = append(recs, s.record(d))
	}
	return recs
}

// record is DLG-9's delegation record for a started child, under the turn
// that made the call. Caller holds mu.
func (s *set) record(d *delegation) tool.Rec {
	id, ses := d.id, d.child.SessionID
	rec := trace.Delegation{Capsule: d.capsule, Version: d.version, DelegationID: &id, ChildSessionID: &ses,
		DurationMS: d.outcome.At.Sub(d.start).Milliseconds(), Outcome: d.outcome.Status}
	if d.reason != "" {
		r := d.reason
		rec.Reason = &r
	}
	return tool.Rec{Record: rec, Parent: d.turnNode}
}
