package tool

import (
	"context"
	"slices"
	"strings"
)

// Waiter is one kind of a task's outstanding work whose outcomes reach the
// model after the turn ends (tools.md RND; call-member, delegate-task). It
// calls its TaskState's Signal whenever Outstanding drops or Ready turns
// true, and owns every goroutine its work runs on: Abandon stops them and
// waits for them.
type Waiter interface {
	// Outstanding is how many pieces are still out (not yet arrived).
	Outstanding() int
	// Ready reports whether an arrived outcome waits to be delivered.
	Ready() bool
	// WaitingText is this waiter's part of RND-1's status text, e.g.
	// "waiting on call-member: 2 call(s) outstanding"; "" when nothing is out.
	WaitingText() string
	// Kind declares this waiter's kind of work: its task_continued field,
	// its LOOP-16 phase and its place in a round.
	Kind() WorkKind
	// Deliver hands over every arrived, undelivered outcome (RND-2).
	Deliver() Delivery
	// Abandon accounts for every piece when the task ends without waiting
	// (RND-9: outstanding → abandoned, arrived → delivered: false), once its
	// goroutines have ended, and returns the records to write before
	// task_end.
	Abandon() []Rec
}

// The task_continued fields a Delivery's ids go to (RND-2).
const (
	FieldMemberCalls = "member_calls"
	FieldDelegations = "delegations"
)

// WorkKind is what a Waiter declares about its work, so that the continuation
// names no kind itself: Field is the task_continued field its ids go to,
// Phase the LOOP-16 phase a cancel lands in while its work is out, and
// Order its place in a round, lower first (RND-2: member answers before
// delegation outcomes).
type WorkKind struct {
	Field string
	Phase string
	Order int
}

// Delivery is what one Waiter hands to a continuation (RND-2).
type Delivery struct {
	// Blocks are the outcomes, each a header line and its fence (RND-4,
	// DLG-8), in the field's order.
	Blocks []string
	// Lines are the waiter's runtime lines (RND-5..8), which follow every
	// fence of the round (RND-4).
	Lines      []string
	IDs        []string // ids delivered, in the order of the waiter's field
	Records    []Rec    // written before task_continued (parent: task)
	StatusText string   // e.g. "continuing with 2 member answer(s)"
}

// Pending reports whether any waiter has work out or an outcome to deliver:
// only then does a task whose turn ended with a turn left wait (RND-1).
func (ts *TaskState) Pending() bool {
	for _, w := range ts.Waiters() {
		if w.Outstanding() > 0 || w.Ready() {
			return true
		}
	}
	return false
}

// Wait blocks until no waiter has work outstanding (RND-1) and returns nil,
// or until ctx ends (a cancel while waiting, RND-3) and returns ctx's error.
// status gets RND-1's text, each waiter's WaitingText joined by "; ", at the
// start and whenever the count drops with work still out; nothing when all
// has arrived already. It wakes on Changed only: no polling.
func (ts *TaskState) Wait(ctx context.Context, status func(text string)) error {
	last := -1
	for {
		changed := ts.Changed() // before the read: a Signal after it closes this one
		out, parts := 0, []string{}
		for _, w := range ts.Waiters() {
			if n := w.Outstanding(); n > 0 {
				out += n
				parts = append(parts, w.WaitingText())
			}
		}
		if out == 0 {
			return nil
		}
		if last < 0 || out < last {
			status(strings.Join(parts, "; "))
		}
		last = out
		select {
		case <-changed:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// Round is what one continuation delivers (RND-2, RND-3).
type Round struct {
	// Text is the one user message: every answer's block, then every
	// delegation outcome's (RND-2), then the waiters' runtime lines, which
	// follow every fence (RND-4); a blank line between each; cut at 64 KiB
	// (RND-3).
	Text string
	// IDs maps task_continued's fields (FieldMemberCalls, FieldDelegations)
	// to the ids delivered.
	IDs map[string][]string
	// Records are written before task_continued, in order.
	Records []Rec
	// Status is RND-2's "continuing with …" text: the first delivery's, the
	// others' joined on with " and " ("continuing with 2 member
	// answer(s) and 1 delegation outcome(s)"); "" when none.
	Status string
}

// Deliver collects every waiter's Delivery into the round's message, ids,
// records and status (RND-2), in the order the waiters' kinds declare
// (member answers, then delegation outcomes), whatever order the waiters
// registered in.
func (ts *TaskState) Deliver() Round {
	r := Round{IDs: map[string][]string{}}
	type delivered struct {
		Delivery
		kind WorkKind
	}
	var ds []delivered
	for _, w := range ts.Waiters() {
		if d := w.Deliver(); len(d.Blocks) > 0 || len(d.IDs) > 0 {
			ds = append(ds, delivered{d, w.Kind()})
		}
	}
	slices.SortStableFunc(ds, func(a, b delivered) int { return a.kind.Order - b.kind.Order })
	var parts, lines []string
	for _, d := range ds {
		parts = append(parts, d.Blocks...)
		lines = append(lines, d.Lines...)
		r.Records = append(r.Records, d.Records...)
		r.IDs[d.kind.Field] = append(r.IDs[d.kind.Field], d.IDs...)
		switch {
		case d.StatusText == "":
		case r.Status == "":
			r.Status = d.StatusText
		default:
			r.Status += " and " + strings.TrimPrefix(d.StatusText, continuingPrefix)
		}
	}
	r.Text, _ = Cut64(strings.Join(append(parts, lines...), "\n\n"))
	return r
}

// continuingPrefix opens every RND-2 status text.
const continuingPrefix = "continuing with "

// WaitPhase is the LOOP-16 phase a cancel during the wait lands in (RND-3):
// the phase of the lowest-ordered kind of work still out; with nothing out,
// of the lowest-ordered waiter; "" with no waiter.
func (ts *TaskState) WaitPhase() string {
	var best *WorkKind
	out := false
	for _, w := range ts.Waiters() {
		k, has := w.Kind(), w.Outstanding() > 0
		if best == nil || (has && !out) || (has == out && k.Order < best.Order) {
			best, out = &k, has
		}
	}
	if best == nil {
		return ""
	}
	return best.Phase
}

// Abandon has every waiter account for its work as the task ends without
// waiting (RND-9), in registration order, and returns their records. Each
// waiter's goroutines have ended when it returns.
func (ts *TaskState) Abandon() []Rec {
	var recs []Rec
	for _, w := range ts.Waiters() {
		recs = append(recs, w.Abandon()...)
	}
	return recs
}
