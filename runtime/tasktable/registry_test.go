package tasktable

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/murmur-go/mur/a2a"
)

func msg(text string) a2a.Message {
	return a2a.Message{MessageID: "m-" + text, Role: a2a.RoleUser, Parts: []a2a.Part{a2a.TextPart(text)}}
}

var door = Provenance{Origin: a2a.OriginEvent, Trust: a2a.TrustUntrusted, Source: "a2a"}

func newReg(t *testing.T, mode Mode, depth int, events *[]Event) *Registry {
	t.Helper()
	r, err := New(Config{Acceptance: mode, QueueDepth: depth, Notify: func(e Event) {
		if events != nil {
			*events = append(*events, e)
		}
	}})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return r
}

func send(t *testing.T, r *Registry, c Caller, text string) a2a.Task {
	t.Helper()
	tk, _, err := r.Send(SendRequest{Caller: c, Prov: door, Message: msg(text)})
	if err != nil {
		t.Fatalf("Send(%q) error = %v", text, err)
	}
	return tk
}

func next(t *testing.T, r *Registry) *Run {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	run, err := r.Next(ctx)
	if err != nil {
		t.Fatalf("Next: %v", err)
	}
	return run
}

func statusText(tk a2a.Task) string {
	if tk.Status.Message == nil {
		return ""
	}
	return a2a.Text(tk.Status.Message.Parts)
}

// TASK-7, TASK-5: single takes exactly one task; the rest are REJECTED busy and not stored.
func TestSingleAcceptsOneTask(t *testing.T) {
	var evs []Event
	r := newReg(t, ModeSingle, 0, &evs)
	first := send(t, r, Caller{}, "one")
	if first.Status.State != a2a.TaskStateSubmitted {
		t.Fatalf("first state = %s, want SUBMITTED", first.Status.State)
	}
	busy := send(t, r, Caller{}, "two")
	if busy.Status.State != a2a.TaskStateRejected || statusText(busy) != "task rejected: capsule is busy" {
		t.Fatalf("second = %s %q, want REJECTED busy", busy.Status.State, statusText(busy))
	}
	if busy.Status.Message.MessageID != "msg_"+string(busy.ID)+"_status" || busy.Status.Message.Role != a2a.RoleAgent {
		t.Errorf("busy status message = %+v", busy.Status.Message)
	}
	if _, err := r.Get(Caller{}, busy.ID, nil); !errors.Is(err, a2a.ErrTaskNotFound) {
		t.Errorf("Get(busy) error = %v, want -32001", err)
	}
	if len(evs) != 2 || evs[0].Kind != EventReceived || evs[1].Kind != EventRejected || evs[1].Cause != "busy" {
		t.Errorf("events = %+v", evs)
	}
	run := next(t, r)
	run.Finish(Outcome{State: a2a.TaskStateCompleted, Response: "done"})
	if again := send(t, r, Caller{}, "three"); again.Status.State != a2a.TaskStateRejected {
		t.Errorf("after the one task, state = %s, want REJECTED", again.Status.State)
	}
}

// TASK-7: queue holds queue_depth tasks beyond the running one; cancelling a queued task frees its slot.
func TestQueueDepth(t *testing.T) {
	var evs []Event
	r := newReg(t, ModeQueue, 2, &evs)
	send(t, r, Caller{}, "a")
	run := next(t, r) // running: does not count
	b := send(t, r, Caller{}, "b")
	send(t, r, Caller{}, "c")
	if d := send(t, r, Caller{}, "d"); d.Status.State != a2a.TaskStateRejected {
		t.Fatalf("third queued state = %s, want REJECTED", d.Status.State)
	}
	if evs[len(evs)-1].Cause != "queue_full" {
		t.Errorf("rejection cause = %q, want queue_full", evs[len(evs)-1].Cause)
	}
	canceled, err := r.Cancel(Caller{}, b.ID)
	if err != nil || canceled.Status.State != a2a.TaskStateCanceled || statusText(canceled) != "task canceled before it started" {
		t.Fatalf("Cancel(queued) = %+v, %v", canceled.Status, err)
	}
	if evs[len(evs)-1].Kind != EventCanceledQueued {
		t.Errorf("last event = %+v, want EventCanceledQueued", evs[len(evs)-1])
	}
	if e := send(t, r, Caller{}, "e"); e.Status.State != a2a.TaskStateSubmitted {
		t.Errorf("after freeing a slot, state = %s, want SUBMITTED", e.Status.State)
	}
	run.Finish(Outcome{State: a2a.TaskStateCompleted})
	if n := next(t, r); a2a.Text(n.Message().Parts) != "c" {
		t.Errorf("next task = %q, want c (arrival order)", a2a.Text(n.Message().Parts))
	}
}

// LOOP-4: user lane before peer lane before bg lane.
func TestLanes(t *testing.T) {
	r := newReg(t, ModeQueue, 10, nil)
	send(t, r, Caller{}, "bg")
	if _, _, err := r.Send(SendRequest{Prov: Provenance{Origin: a2a.OriginPeer}, Message: msg("peer")}); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Submit(Provenance{Origin: a2a.OriginUser, Trust: a2a.TrustTrusted, Source: "task_md"}, msg("user")); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"user", "peer", "bg"} {
		run := next(t, r)
		if got := a2a.Text(run.Message().Parts); got != want {
			t.Fatalf("next = %q, want %q", got, want)
		}
		run.Finish(Outcome{State: a2a.TaskStateCompleted})
	}
}

// METH-CT-1, TASK-3: a running task is CANCELED at once; the later loop outcome does not overwrite it.
func TestCancelRunningIsFinal(t *testing.T) {
	r := newReg(t, ModeSingle, 0, nil)
	tk := send(t, r, Caller{}, "x")
	run := next(t, r)
	got, err := r.Cancel(Caller{}, tk.ID)
	if err != nil || got.Status.State != a2a.TaskStateCanceled || statusText(got) != "canceled: CancelTask" {
		t.Fatalf("Cancel = %+v, %v", got.Status, err)
	}
	select {
	case <-run.Canceled():
	default:
		t.Fatal("Canceled() not closed after Cancel")
	}
	if run.CancelCause() != "CancelTask" {
		t.Errorf("CancelCause = %q", run.CancelCause())
	}
	if run.Finish(Outcome{State: a2a.TaskStateCompleted, Response: "late"}) {
		t.Error("Finish after cancel returned true")
	}
	_, err = r.Cancel(Caller{}, tk.ID)
	var ae *a2a.Error
	if !errors.As(err, &ae) || ae.Code != -32002 || ae.Metadata["state"] != "TASK_STATE_CANCELED" ||
		ae.Message != "Task cannot be canceled: it is already TASK_STATE_CANCELED" {
		t.Errorf("second Cancel error = %#v", err)
	}
}

// METH-STOP-1: session/stop cancels every live task once; a second call moves none.
func TestStopAll(t *testing.T) {
	r := newReg(t, ModeQueue, 5, nil)
	a := send(t, r, Caller{}, "a")
	next(t, r)
	b := send(t, r, Caller{}, "b")
	ids := r.StopAll()
	if len(ids) != 2 || !(ids[0] == min(a.ID, b.ID) && ids[1] == max(a.ID, b.ID)) {
		t.Fatalf("StopAll = %v", ids)
	}
	if again := r.StopAll(); len(again) != 0 {
		t.Errorf("second StopAll = %v, want []", again)
	}
}

// TASK-3: queued tasks are rejected when the session closes; new ones get the closing text.
func TestClose(t *testing.T) {
	var evs []Event
	r := newReg(t, ModeQueue, 5, &evs)
	send(t, r, Caller{}, "a")
	next(t, r)
	q := send(t, r, Caller{}, "b")
	rej := r.Close(true)
	if len(rej) != 1 || rej[0].ID != q.ID || statusText(rej[0]) != "task rejected: the session was stopped before this task started" {
		t.Fatalf("Close = %+v", rej)
	}
	if evs[len(evs)-1].Kind != EventRejectedQueued || evs[len(evs)-1].Cause != "session_ended" {
		t.Errorf("last event = %+v", evs[len(evs)-1])
	}
	if n := send(t, r, Caller{}, "c"); statusText(n) != "task rejected: the session is closing" {
		t.Errorf("after Close = %q", statusText(n))
	}
	if _, err := r.Next(context.Background()); !errors.Is(err, ErrClosed) {
		t.Errorf("Next after Close = %v, want ErrClosed", err)
	}
}

// AUTH-6: a member sees only the tasks it started.
func TestMemberVisibility(t *testing.T) {
	r := newReg(t, ModeQueue, 5, nil)
	mine := send(t, r, Caller{Credential: "member:lead", Member: "lead"}, "mine")
	other := send(t, r, Caller{Credential: "operator"}, "other")
	lead := Caller{Credential: "member:lead", Member: "lead"}
	if _, err := r.Get(lead, other.ID, nil); !errors.Is(err, a2a.ErrTaskNotFound) {
		t.Errorf("member Get(other) = %v, want -32001", err)
	}
	if _, err := r.Cancel(lead, other.ID); !errors.Is(err, a2a.ErrTaskNotFound) {
		t.Errorf("member Cancel(other) = %v, want -32001", err)
	}
	l, err := r.List(lead, a2a.ListTasksRequest{})
	if err != nil || l.TotalSize != 1 || l.Tasks[0].ID != mine.ID {
		t.Errorf("member List = %+v, %v", l, err)
	}
	if l, _ := r.List(Caller{Credential: "operator"}, a2a.ListTasksRequest{}); l.TotalSize != 2 {
		t.Errorf("operator List total = %d, want 2", l.TotalSize)
	}
}

// SSE-3, METH-SS-2: a stream gets the task, WORKING, the response artifact, then the terminal status, then ends.
func TestSubscriptionOrder(t *testing.T) {
	r := newReg(t, ModeSingle, 0, nil)
	tk, sub, err := r.Send(SendRequest{Prov: door, Message: msg("x"), Subscribe: true})
	if err != nil || sub == nil {
		t.Fatal(err)
	}
	run := next(t, r)
	run.Status("waiting on call-member: 1 call(s) outstanding")
	run.Finish(Outcome{State: a2a.TaskStateCompleted, Response: "42"})
	var got []string
	for ev := range sub.Events() {
		switch {
		case ev.Task != nil:
			got = append(got, "task:"+string(ev.Task.Status.State))
		case ev.StatusUpdate != nil:
			got = append(got, "status:"+string(ev.StatusUpdate.Status.State))
		case ev.ArtifactUpdate != nil:
			got = append(got, "artifact:"+ev.ArtifactUpdate.Artifact.Name+":"+a2a.Text(ev.ArtifactUpdate.Artifact.Parts))
		}
	}
	want := []string{"task:TASK_STATE_SUBMITTED", "status:TASK_STATE_WORKING", "status:TASK_STATE_WORKING",
		"artifact:response:42", "status:TASK_STATE_COMPLETED"}
	if len(got) != len(want) {
		t.Fatalf("events = %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("events = %v, want %v", got, want)
		}
	}
	if _, err := r.Subscribe(Caller{}, tk.ID); !errors.Is(err, a2a.ErrUnsupportedOperation) {
		t.Errorf("Subscribe(ended) = %v, want -32004", err)
	}
}

// SSE-5: a subscriber more than 128 events behind is cut off.
func TestSubscriptionLag(t *testing.T) {
	r := newReg(t, ModeSingle, 0, nil)
	tk := send(t, r, Caller{}, "x")
	run := next(t, r)
	sub, err := r.Subscribe(Caller{}, tk.ID)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < a2a.StreamLagLimit+1; i++ {
		run.Status("tick")
	}
	n := 0
	for range sub.Events() {
		n++
	}
	if !sub.Lagged() || n != a2a.StreamLagLimit+1 {
		t.Errorf("lagged = %v after %d events, want true after %d", sub.Lagged(), n, a2a.StreamLagLimit+1)
	}
}

// METH-LT-1, METH-LT-2: order, paging, filters and token checks.
func TestListPaging(t *testing.T) {
	r := newReg(t, ModeQueue, 100, nil)
	now := time.Date(2026, 10, 20, 13, 0, 0, 0, time.UTC)
	r.cfg.Now = func() time.Time { now = now.Add(time.Second); return now }
	var ids []a2a.TaskID
	for _, s := range []string{"a", "b", "c", "d", "e"} {
		ids = append(ids, send(t, r, Caller{}, s).ID)
	}
	two := 2
	var seen []a2a.TaskID
	tok := ""
	for page := 0; ; page++ {
		l, err := r.List(Caller{}, a2a.ListTasksRequest{PageSize: &two, PageToken: tok})
		if err != nil {
			t.Fatal(err)
		}
		if l.TotalSize != 5 || l.PageSize != 2 {
			t.Fatalf("page %d: total %d size %d", page, l.TotalSize, l.PageSize)
		}
		for _, tk := range l.Tasks {
			seen = append(seen, tk.ID)
		}
		if tok = l.NextPageToken; tok == "" {
			break
		}
	}
	if len(seen) != 5 {
		t.Fatalf("saw %d tasks, want 5", len(seen))
	}
	for i := range seen {
		if seen[i] != ids[len(ids)-1-i] {
			t.Fatalf("order = %v, want newest first %v", seen, ids)
		}
	}
	zero, big := 0, 101
	bad := []a2a.ListTasksRequest{{PageSize: &zero}, {PageSize: &big}, {Status: "DONE"}, {PageToken: "nope"}, {StatusTimestampAfter: "yesterday"}}
	for _, q := range bad {
		if _, err := r.List(Caller{}, q); !errors.Is(err, a2a.ErrInvalidParams) {
			t.Errorf("List(%+v) error = %v, want -32602", q, err)
		}
	}
	if l, _ := r.List(Caller{}, a2a.ListTasksRequest{Status: a2a.TaskStateWorking}); l.TotalSize != 0 || l.NextPageToken != "" || l.Tasks == nil {
		t.Errorf("empty filter result = %+v", l)
	}
}

// SSE-9: replay, gap after eviction, lagged, capsule-closed.
func TestWatch(t *testing.T) {
	r := newReg(t, ModeQueue, 1000, nil)
	ctx := context.Background()
	if w := r.Watch(0); len(w.replay) != 0 {
		t.Fatalf("empty buffer replayed %d frames", len(w.replay))
	}
	send(t, r, Caller{}, "a") // frame 1: status submitted
	w := r.Watch(0)
	f, err := w.Next(ctx)
	if err != nil || f.ID != 1 || f.Event != a2a.FrameStatus {
		t.Fatalf("replay first = %+v %v", f, err)
	}
	for i := 0; i < a2a.WatchReplayCapacity; i++ {
		r.Frame(a2a.FrameText, map[string]any{"i": i})
	}
	late := r.Watch(0) // frame 1 was evicted: gap, then the whole buffer
	g, _ := late.Next(ctx)
	if g.Event != a2a.FrameGap || string(g.Data) != `{"first_available_id":2}` {
		t.Errorf("gap frame = %s %s", g.Event, g.Data)
	}
	// w fell more than 128 live frames behind: a lagged frame comes first.
	l, _ := w.Next(ctx)
	if l.Event != a2a.FrameLagged {
		t.Errorf("frame after overflow = %s, want lagged", l.Event)
	}
	r.CloseFrames()
	for {
		f, err := w.Next(ctx)
		if err != nil {
			t.Fatalf("Next before capsule-closed: %v", err)
		}
		if f.Event == a2a.FrameCapsuleClosed {
			break
		}
	}
	if _, err := w.Next(ctx); err == nil {
		t.Error("Next after capsule-closed returned a frame")
	}
}

// SSE-8: frame data is written as the runtime produced it, one line, with no
// HTML escaping — a fenced tool result keeps its '<' and '>'.
func TestWatchFrameDataUnescaped(t *testing.T) {
	r := newReg(t, ModeQueue, 1, nil)
	r.Frame(a2a.FrameArtifact, map[string]any{"id": "tsk_1", "artifact": map[string]any{
		"content": "<untrusted-content source=tool:bash>\na & b\n</untrusted-content>"}})
	f, err := r.Watch(0).Next(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want := `{"artifact":{"content":"<untrusted-content source=tool:bash>\na & b\n</untrusted-content>"},"id":"tsk_1"}`
	if string(f.Data) != want {
		t.Errorf("frame data = %s, want %s", f.Data, want)
	}
}
