package tool

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/murmur-go/mur/runtime/trace"
	"github.com/murmur-go/mur/runtime/trace/tracetest"
)

// countWaiter is a Waiter with n pieces out; arrive lands one and signals
// the task's state, as a real waiter does from its goroutine.
type countWaiter struct {
	ts    *TaskState
	field string
	text  string
	kind  *WorkKind // declared kind; nil: the kind of field

	mu        sync.Mutex
	out, done int
	abandoned bool
}

func (w *countWaiter) arrive() {
	w.mu.Lock()
	w.out--
	w.done++
	w.mu.Unlock()
	w.ts.Signal()
}

func (w *countWaiter) Outstanding() int { w.mu.Lock(); defer w.mu.Unlock(); return w.out }
func (w *countWaiter) Ready() bool      { w.mu.Lock(); defer w.mu.Unlock(); return w.done > 0 }
func (w *countWaiter) WaitingText() string {
	if n := w.Outstanding(); n > 0 {
		return strings.Repeat("x", n) + " out of " + w.field
	}
	return ""
}
func (w *countWaiter) Deliver() Delivery {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.done == 0 {
		return Delivery{}
	}
	w.done = 0
	return Delivery{Blocks: []string{w.text}, Lines: []string{"[" + w.field + "] last"}, IDs: []string{w.field + "_1"}, StatusText: "continuing with " + w.field,
		Records: []Rec{{Record: trace.KeepWorking{TaskID: w.field}}}}
}
func (w *countWaiter) Kind() WorkKind {
	switch {
	case w.kind != nil:
		return *w.kind
	case w.field == FieldDelegations:
		return WorkKind{Field: w.field, Phase: "delegation", Order: 1}
	}
	return WorkKind{Field: w.field, Phase: "member_call", Order: 0}
}
func (w *countWaiter) Abandon() []Rec {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.abandoned = true
	return []Rec{{Record: trace.KeepWorking{TaskID: "abandoned " + w.field}}}
}

// TestWaitOnOneSignal_RND1: the wait reads every waiter's count, shows
// RND-1's text at the start and whenever the count drops, wakes on the task
// state's one Changed channel, and returns once nothing is out.
func TestWaitOnOneSignal_RND1(t *testing.T) {
	ts := NewTaskState(TaskInfo{ID: "tsk_a"}, nil)
	calls := &countWaiter{ts: ts, field: FieldMemberCalls, out: 2}
	dels := &countWaiter{ts: ts, field: FieldDelegations, out: 1}
	if ts.Pending() {
		t.Fatal("Pending with no waiter")
	}
	ts.AddWaiter(calls)
	ts.AddWaiter(dels)
	if !ts.Pending() {
		t.Fatal("not Pending with work out")
	}
	statuses := make(chan string, 8) // more than the wait can show: it never blocks
	done := make(chan error, 1)      // the wait's one result
	go func() { done <- ts.Wait(context.Background(), func(s string) { statuses <- s }) }()
	want := func(s string) {
		t.Helper()
		if got := <-statuses; got != s {
			t.Fatalf("status = %q, want %q", got, s)
		}
	}
	want("xx out of member_calls; x out of delegations")
	calls.arrive()
	want("x out of member_calls; x out of delegations")
	dels.arrive()
	want("x out of member_calls")
	calls.arrive()
	if err := <-done; err != nil {
		t.Fatalf("Wait = %v", err)
	}
	if len(statuses) != 0 {
		t.Errorf("a status after the count reached 0: %q", <-statuses)
	}
	if err := ts.Wait(context.Background(), func(s string) { t.Errorf("status %q with nothing out", s) }); err != nil {
		t.Errorf("Wait with nothing out = %v", err)
	}
}

// TestWaitCanceled_RND3: a cancel ends the wait with the context's error.
func TestWaitCanceled_RND3(t *testing.T) {
	ts := NewTaskState(TaskInfo{ID: "tsk_a"}, nil)
	ts.AddWaiter(&countWaiter{ts: ts, field: FieldMemberCalls, out: 1})
	ctx, cancel := context.WithCancel(context.Background())
	started := make(chan struct{})
	done := make(chan error, 1) // the wait's one result
	go func() {
		done <- ts.Wait(ctx, func(string) { close(started) })
	}()
	<-started
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("Wait = %v, want context.Canceled", err)
	}
}

// TestDeliverRound_RND2_RND3: one round holds every member answer's block,
// then every delegation outcome's, whatever order the waiters registered
// in, then their runtime lines, a blank line between, cut at 64 KiB; its ids
// by task_continued field; its records; one status text.
func TestDeliverRound_RND2_RND3(t *testing.T) {
	ts := NewTaskState(TaskInfo{ID: "tsk_a"}, nil)
	dels := &countWaiter{ts: ts, field: FieldDelegations, done: 1, text: "outcome"}
	calls := &countWaiter{ts: ts, field: FieldMemberCalls, done: 1, text: "answers"}
	idle := &countWaiter{ts: ts, field: "nothing"}
	ts.AddWaiter(dels)
	ts.AddWaiter(idle)
	ts.AddWaiter(calls)
	r := ts.Deliver()
	if want := "answers\n\noutcome\n\n[member_calls] last\n\n[delegations] last"; r.Text != want {
		t.Errorf("text = %q, want %q", r.Text, want)
	}
	if got := r.IDs[FieldMemberCalls]; len(got) != 1 || got[0] != "member_calls_1" {
		t.Errorf("member_calls = %v", got)
	}
	if got := r.IDs[FieldDelegations]; len(got) != 1 || got[0] != "delegations_1" {
		t.Errorf("delegations = %v", got)
	}
	if r.Status != "continuing with member_calls and delegations" || len(r.Records) != 2 {
		t.Errorf("status %q, %d records", r.Status, len(r.Records))
	}
	recs := ts.Abandon()
	if len(recs) != 3 || !calls.abandoned || !idle.abandoned || !dels.abandoned {
		t.Errorf("Abandon = %d records; abandoned %v %v %v", len(recs), calls.abandoned, idle.abandoned, dels.abandoned)
	}
	long := &countWaiter{ts: ts, field: FieldDelegations, done: 1, text: strings.Repeat("d", CutLimit)}
	ts2 := NewTaskState(TaskInfo{ID: "tsk_b"}, nil)
	long.ts = ts2
	ts2.AddWaiter(long)
	if r := ts2.Deliver(); !strings.HasSuffix(r.Text, "[output cut at 64 KiB]") {
		t.Errorf("a round over 64 KiB was not cut: …%q", r.Text[len(r.Text)-30:])
	}
}

// TestWaitPhase_LOOP16: a cancel while waiting lands in the phase of the
// first kind of work still out, member calls before delegations.
func TestWaitPhase_LOOP16(t *testing.T) {
	ts := NewTaskState(TaskInfo{ID: "tsk_a"}, nil)
	dels := &countWaiter{ts: ts, field: FieldDelegations, out: 1}
	calls := &countWaiter{ts: ts, field: FieldMemberCalls}
	ts.AddWaiter(dels)
	ts.AddWaiter(calls)
	if got := ts.WaitPhase(); got != "delegation" {
		t.Errorf("WaitPhase = %q, want delegation", got)
	}
	calls.out = 1
	if got := ts.WaitPhase(); got != "member_call" {
		t.Errorf("WaitPhase = %q, want member_call", got)
	}
	ts.NoteEnded(FieldDelegations, "dlg_1")
	if got := ts.EndedIDs(FieldDelegations); len(got) != 1 || got[0] != "dlg_1" {
		t.Errorf("EndedIDs = %v", got)
	}
	if got := ts.EndedIDs(FieldMemberCalls); got == nil || len(got) != 0 {
		t.Errorf("EndedIDs(member_calls) = %#v, want empty", got)
	}
	calls.out, dels.out = 0, 0
	if got := ts.WaitPhase(); got != "member_call" {
		t.Errorf("WaitPhase with nothing out = %q, want the lowest-ordered kind's, member_call", got)
	}
	if got := NewTaskState(TaskInfo{ID: "tsk_b"}, nil).WaitPhase(); got != "" {
		t.Errorf("WaitPhase with no waiter = %q", got)
	}
}

// TestWaiterDeclaresKind_RND2: the continuation orders a round and picks
// the wait's phase by the kinds the waiters declare, so a kind the core
// has never heard of takes the place its Order gives it.
func TestWaiterDeclaresKind_RND2(t *testing.T) {
	ts := NewTaskState(TaskInfo{ID: "tsk_a"}, nil)
	calls := &countWaiter{ts: ts, field: FieldMemberCalls, out: 1, done: 1, text: "answer"}
	other := &countWaiter{ts: ts, field: "reviews", out: 1, done: 1, text: "review",
		kind: &WorkKind{Field: "reviews", Phase: "review", Order: -1}}
	ts.AddWaiter(calls)
	ts.AddWaiter(other)
	if got := ts.WaitPhase(); got != "review" {
		t.Errorf("WaitPhase = %q, want review (Order -1 comes first)", got)
	}
	r := ts.Deliver()
	if !strings.HasPrefix(r.Text, "review\n\nanswer") {
		t.Errorf("round = %q, want the review block before the answer", r.Text)
	}
	if got := r.IDs["reviews"]; len(got) != 1 || got[0] != "reviews_1" {
		t.Errorf("IDs[reviews] = %v", got)
	}
}

// TestWritePath_TRACE2: a tool record written through the task's state
// hangs where TRACE-2 puts it, or under the parent named, and Written gets
// its event id.
func TestWritePath_TRACE2(t *testing.T) {
	dir := t.TempDir()
	tr, err := trace.Open(filepath.Join(dir, "trace.jsonl"), "ses_x", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	_, _ = tr.Write(trace.SessionStart{})
	taskNode, _ := tr.Write(trace.TaskStart{TaskID: "tsk_a"})
	ts := NewTaskState(TaskInfo{ID: "tsk_a"}, tr)
	if ts.TurnNode() != "" {
		t.Errorf("TurnNode before the first turn = %q", ts.TurnNode())
	}
	turn0, _ := tr.Write(trace.Inference{Turn: 0, TaskID: "tsk_a"})
	if ts.TurnNode() != turn0 {
		t.Errorf("TurnNode = %q, want %q", ts.TurnNode(), turn0)
	}
	var written string
	shell := ts.Write("", Rec{Record: trace.Shell{Turn: 0, TaskID: "tsk_a"}, Written: func(id string) { written = id }})
	call := ts.Write("", Rec{Record: trace.MemberCall{TaskID: "tsk_a"}})
	_, _ = tr.Write(trace.Inference{Turn: 1, TaskID: "tsk_a"})
	busy := ts.Write(turn0, Rec{Record: trace.MemberCallBusy{TaskID: "tsk_a"}})
	if shell == "" || written != shell {
		t.Errorf("Written got %q, Write returned %q", written, shell)
	}
	parents := map[string]string{shell: turn0, call: taskNode, busy: turn0}
	for _, l := range tracetest.Read(t, tr.Path()) {
		want, ok := parents[l.EventID]
		if !ok {
			continue
		}
		if l.ParentID == nil || *l.ParentID != want {
			t.Errorf("%s parent = %v, want %s", l.EventType, l.ParentID, want)
		}
	}
	if NewTaskState(TaskInfo{ID: "tsk_b"}, nil).Write("", Rec{Record: trace.Shell{}}) != "" {
		t.Error("a state without a trace wrote a record")
	}
}
