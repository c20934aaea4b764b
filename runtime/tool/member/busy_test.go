package member

import (
	"encoding/json"
	"testing"
	"testing/synctest"
	"time"

	"github.com/murmur-go/mur/a2a"
	"github.com/murmur-go/mur/runtime/tool"
	"github.com/murmur-go/mur/runtime/trace"
	"github.com/murmur-go/mur/runtime/trace/tracetest"
)

// replies answers the nth request with rs[n-1], repeating the last.
func replies(rs ...reply) func(int) reply {
	return func(n int) reply { return rs[min(n, len(rs))-1] }
}

// waitOut sleeps in the bubble's fake time until every goroutine is blocked
// and the call set has nothing outstanding.
func waitOut(t *testing.T, s *callSet, step time.Duration) {
	t.Helper()
	for range 10000 {
		synctest.Wait()
		if s.Outstanding() == 0 {
			return
		}
		time.Sleep(step)
	}
	t.Fatal("calls still outstanding")
}

// TestBusyThenTaken is CALL-9: the busy result and note, re-offers 1 s after
// the first refusal then doubling, one member_call_busy per refusal,
// member_call_start, and the call going on as started (CALL-10).
func TestBusyThenTaken(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		door := &fakeDoor{send: replies(busy(), busy(), busy(), taken("tsk_w")), get: replies(reply{task: completed("tsk_w", "done")})}
		f := newFixture(t, door, "", 0)
		turn0, err := f.tw.Write(trace.Inference{Turn: 0, TaskID: f.ts.ID})
		if err != nil {
			t.Fatal(err)
		}
		res := f.callMember(t, "worker", "x")
		// A later turn begins while the re-offers go on: their records still
		// hang from the turn that made the call (TRACE-2).
		if _, err := f.tw.Write(trace.Inference{Turn: 1, TaskID: f.ts.ID}); err != nil {
			t.Fatal(err)
		}
		id := callID(t, res)
		if res.Status != tool.Passed || res.Summary != "Called worker: busy" {
			t.Errorf("result = %+v, want passed busy", res)
		}
		if want := `{"call_id":"` + id + `","member":"worker","output":"worker is busy with other work and did not take the task","status":"busy"}`; res.Data != want {
			t.Errorf("data = %s\nwant %s", res.Data, want)
		}
		note := "[call-member] worker is busy with other work and has not taken call " + id + " yet. The runtime keeps offering it the task for up to 600s and adds worker's answer, or word that it stayed busy, to this conversation after you end your turn. Unless you still have work to hand to a different member, end your turn now by replying without calling a tool. Calling worker again before then is refused."
		if len(res.Notes) != 1 || res.Notes[0] != note {
			t.Errorf("note = %q\nwant %q", res.Notes, note)
		}
		if len(res.Records) != 1 || rec[trace.MemberCallBusy](t, res.Records[0]).Offer != 1 || rec[trace.MemberCallBusy](t, res.Records[0]).Message != busyMessage {
			t.Errorf("records = %+v, want the first member_call_busy", res.Records)
		}
		s := f.set(t)
		if s.Outstanding() != 1 || s.WaitingText() != "waiting on call-member: 1 call(s) outstanding" {
			t.Errorf("outstanding %d, %q", s.Outstanding(), s.WaitingText())
		}
		waitOut(t, s, 100*time.Millisecond)
		lines := f.lines(t)
		busyRecs := tracetest.OfType[trace.MemberCallBusy](t, lines)
		if len(busyRecs) != 2 {
			t.Fatalf("%d member_call_busy in the trace, want offers 2 and 3", len(busyRecs))
		}
		for i, want := range []int64{1000, 3000} { // 1 s after the first refusal, then 2 s
			if busyRecs[i].Offer != i+2 || busyRecs[i].WaitedMS != want || busyRecs[i].CallID != id {
				t.Errorf("member_call_busy %d = %+v, want offer %d waited_ms %v", i, busyRecs[i], i+2, want)
			}
		}
		if st := tracetest.OfType[trace.MemberCallStart](t, lines); len(st) != 1 || st[0].MemberTaskID != "tsk_w" {
			t.Errorf("member_call_start = %+v", st)
		}
		for _, l := range append(tracetest.Lines[trace.MemberCallBusy](lines), tracetest.Lines[trace.MemberCallStart](lines)...) {
			if l.ParentID == nil || *l.ParentID != turn0 {
				t.Errorf("%s (line %d): parent %v, want the calling turn %s", l.EventType, l.Num, l.ParentID, turn0)
			}
		}
		if got := time.Since(start); got != 7500*time.Millisecond { // offers at 0, 1, 3, 7 s; first read 500 ms later
			t.Errorf("the call ended after %v, want 7.5s", got)
		}
		d := s.Deliver()
		mc := rec[trace.MemberCall](t, d.Records[0])
		if mc.Status != "completed" || mc.MemberTaskID != "tsk_w" || mc.DurationMS != 7500 || !mc.Delivered {
			t.Errorf("member_call = %+v", mc)
		}
		s.Abandon()
	})
}

// TestBusyDeadline is CALL-9's deadline row: rejected, never held, with the
// count of offers.
func TestBusyDeadline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		door := &fakeDoor{send: replies(busy())}
		f := newFixture(t, door, "", 10*time.Second)
		f.callMember(t, "worker", "x")
		s := f.set(t)
		waitOut(t, s, time.Second)
		d := s.Deliver()
		mc := rec[trace.MemberCall](t, d.Records[0])
		want := "worker stayed busy with other work for the whole 10s this call may wait and never took the task; it was offered the task 4 times. Nothing was done on it."
		if mc.Status != "rejected" || mc.Output != want || mc.DurationMS != 10000 {
			t.Errorf("member_call = %+v, want rejected %q after 10 s", mc, want)
		}
		if mc.MemberTaskID != "" {
			t.Error("a call never held carries member_task_id")
		}
		if n := len(door.requests(a2a.MethodSendMessage)); n != 4 { // at 0, 1, 3, 7 s; the next would be at 15 s
			t.Errorf("%d offers, want 4", n)
		}
		s.Abandon()
	})
}

// TestBusyUnreachable is CALL-9: two offers in a row with no answer end the
// call unreachable; one unanswered offer between busy ones does not.
func TestBusyUnreachable(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		na := reply{noAnswer: true}
		door := &fakeDoor{send: replies(busy(), na, busy(), na, na)}
		f := newFixture(t, door, "", 0)
		f.callMember(t, "worker", "x")
		s := f.set(t)
		waitOut(t, s, time.Second)
		mc := rec[trace.MemberCall](t, s.Deliver().Records[0])
		if mc.Status != "unreachable" || mc.Output != "worker's door stopped answering: connection refused" {
			t.Errorf("member_call = %+v", mc)
		}
		if n := len(tracetest.OfType[trace.MemberCallBusy](t, f.lines(t))); n != 1 {
			t.Errorf("%d member_call_busy from re-offers, want 1 (offer 3)", n)
		}
		s.Abandon()
	})
}

// TestBusyOtherRefusal is CALL-9: only the exact busy text is offered again.
func TestBusyOtherRefusal(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		door := &fakeDoor{send: replies(busy(), reply{task: task("tsk_r", a2a.TaskStateRejected, "task rejected: capsule is busy!")})}
		f := newFixture(t, door, "", 0)
		f.callMember(t, "worker", "x")
		s := f.set(t)
		waitOut(t, s, time.Second)
		mc := rec[trace.MemberCall](t, s.Deliver().Records[0])
		if mc.Status != "rejected" || mc.Output != "worker did not take the task: capsule is busy!" {
			t.Errorf("member_call = %+v", mc)
		}
		if n := len(door.requests(a2a.MethodSendMessage)); n != 2 {
			t.Errorf("%d offers, want 2", n)
		}
		s.Abandon()
	})
}

// TestPollEvery500ms is CALL-10: GetTask every 500 ms from the hold until the
// task is terminal; one unanswered read between answers is not unreachable.
func TestPollEvery500ms(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		var at []time.Duration
		working := reply{task: task("tsk_w", a2a.TaskStateWorking, "")}
		rs := replies(working, reply{noAnswer: true}, working, reply{task: completed("tsk_w", "done")})
		door := &fakeDoor{send: replies(taken("tsk_w")), get: func(n int) reply { at = append(at, time.Since(start)); return rs(n) }}
		f := newFixture(t, door, "", 0)
		f.callMember(t, "worker", "x")
		s := f.set(t)
		waitOut(t, s, 100*time.Millisecond)
		want := []time.Duration{500 * time.Millisecond, time.Second, 1500 * time.Millisecond, 2 * time.Second}
		if len(at) != len(want) {
			t.Fatalf("reads at %v, want %v", at, want)
		}
		for i := range want {
			if at[i] != want[i] {
				t.Errorf("read %d at %v, want %v", i+1, at[i], want[i])
			}
		}
		var p a2a.GetTaskRequest
		_ = json.Unmarshal(door.requests(a2a.MethodGetTask)[0].params, &p)
		if p.ID != "tsk_w" {
			t.Errorf("GetTask id = %q", p.ID)
		}
		s.Abandon()
	})
}

// TestPollEndings is CALL-10's endings other than a terminal state.
func TestPollEndings(t *testing.T) {
	working := reply{task: task("tsk_w", a2a.TaskStateWorking, "")}
	cases := []struct {
		name     string
		get      func(int) reply
		deadline time.Duration
		status   string
		output   string
		after    time.Duration
	}{
		{"timed out", replies(working), 3 * time.Second, "timed_out",
			"worker did not answer within 3s. Its task was not cancelled — a call that runs out its bound leaves the task it handed over running — and worker may still be working on it", 3 * time.Second},
		{"unreachable", replies(working, reply{noAnswer: true}, reply{noAnswer: true}), 0, "unreachable",
			"worker's door stopped answering: connection refused", 1500 * time.Millisecond},
		{"unreachable hanging", replies(reply{hang: true}), 0, "unreachable",
			"worker's door stopped answering: no answer within 5s", 10500 * time.Millisecond}, // reads at 0.5 s and 5.5 s (the tick kept while the first hung), each cut at 5 s
		{"json-rpc error", replies(reply{rpcCode: -32001, rpcMsg: "Task not found"}), 0, "failed",
			"worker's door answered GetTask with JSON-RPC error -32001: Task not found", 500 * time.Millisecond},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				start := time.Now()
				door := &fakeDoor{send: replies(taken("tsk_w")), get: c.get}
				f := newFixture(t, door, "", c.deadline)
				f.callMember(t, "worker", "x")
				s := f.set(t)
				waitOut(t, s, 100*time.Millisecond)
				if got := time.Since(start); got != c.after {
					t.Errorf("ended after %v, want %v", got, c.after)
				}
				mc := rec[trace.MemberCall](t, s.Deliver().Records[0])
				if mc.Status != c.status || mc.Output != c.output || mc.MemberTaskID != "tsk_w" {
					t.Errorf("member_call = %+v\nwant %s %q", mc, c.status, c.output)
				}
				if n := len(door.requests(a2a.MethodCancelTask)); n != 0 {
					t.Errorf("CancelTask sent %d times; only a task taken after the calling task ended is cancelled", n)
				}
				s.Abandon()
			})
		})
	}
}

// TestTerminalStates is CALL-10's terminal states, their outputs, and the
// 64 KiB cut (TOOL-10, CALL-11 truncated).
func TestTerminalStates(t *testing.T) {
	long := make([]byte, 70000)
	for i := range long {
		long[i] = 'a'
	}
	cases := []struct {
		name   string
		task   *a2a.Task
		status string
		output string
	}{
		{"completed", completed("tsk_w", "the answer"), "completed", "the answer"},
		{"no answer", withBelow(task("tsk_w", a2a.TaskStateFailed, "q gave no answer"), true), "no_answer", "q gave no answer"},
		{"no answer silent", withBelow(task("tsk_w", a2a.TaskStateFailed, ""), true), "no_answer", "worker ended its task without an answer"},
		{"failed", task("tsk_w", a2a.TaskStateFailed, "error: boom"), "failed", "error: boom"},
		{"failed silent", task("tsk_w", a2a.TaskStateFailed, ""), "failed", "worker's task ended failed"},
		{"canceled", task("tsk_w", a2a.TaskStateCanceled, "canceled: CancelTask"), "canceled", "canceled: CancelTask"},
		{"rejected", task("tsk_w", a2a.TaskStateRejected, "task rejected: the session ended before this task started"), "rejected", "task rejected: the session ended before this task started"},
		{"cut", completed("tsk_w", string(long)), "completed", string(long[:65536]) + "\n[output cut at 64 KiB]"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				door := &fakeDoor{send: replies(taken("tsk_w")), get: replies(reply{task: c.task})}
				f := newFixture(t, door, "", 0)
				id := callID(t, f.callMember(t, "worker", "x"))
				s := f.set(t)
				waitOut(t, s, 100*time.Millisecond)
				d := s.Deliver()
				mc := rec[trace.MemberCall](t, d.Records[0])
				if mc.Status != c.status || mc.Output != c.output || mc.Truncated != (c.name == "cut") {
					t.Errorf("member_call status %v truncated %v, output %.80q; want %s", mc.Status, mc.Truncated, mc.Output, c.status)
				}
				header := "[call-member] call " + id + " to worker ended completed:"
				if c.status != "completed" {
					header = "[call-member] call " + id + " to worker ended " + c.status + ", with no answer from worker:"
				}
				want := header + "\n" + tool.Fence("member:worker", c.output)
				if got := deliveryText(d); got[:len(want)] != want {
					t.Errorf("continuation starts %.200q\nwant %.200q", got, want)
				}
				s.Abandon()
			})
		})
	}
}
