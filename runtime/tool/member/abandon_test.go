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

// abandonAsync runs Abandon on its own goroutine, for a test that must
// answer an offer still in flight; the channel yields its records.
func abandonAsync(s *callSet) <-chan []tool.Rec {
	ch := make(chan []tool.Rec, 1) // Abandon's one result
	go func() { ch <- s.Abandon() }()
	return ch
}

// TestAbandon is RND-9 and CALL-9/CALL-10's abandoned endings: what each
// outstanding call records when the calling task ends without waiting, and
// that CancelTask is sent only for a task taken just after it ended.
func TestAbandon(t *testing.T) {
	working := reply{task: task("tsk_w", a2a.TaskStateWorking, "")}
	cases := []struct {
		name    string
		send    func(release <-chan struct{}) func(int) reply
		get     func(int) reply
		timing  Timing
		at      time.Duration // when the task ends
		output  string
		held    bool
		busyRec int // member_call_busy records written by re-offers
		cancel  bool
		ended   time.Duration // when Abandon returned
	}{
		{name: "held", send: fixed(taken("tsk_w")), get: replies(working), at: 2 * time.Second,
			output: "the calling task ended before worker's answer arrived; worker was not cancelled and may still be working", held: true, ended: 2 * time.Second},
		{name: "between offers", send: fixed(busy()), at: 500 * time.Millisecond,
			output: "the calling task ended before worker took the task; worker was busy and was never handed it", ended: 500 * time.Millisecond},
		{name: "in flight taken", send: inFlight(taken("tsk_w")), at: 1500 * time.Millisecond,
			output: "the calling task ended just after worker took the task; a cancel was sent to worker", held: true, cancel: true, ended: 1500 * time.Millisecond},
		{name: "in flight busy", send: inFlight(busy()), at: 1500 * time.Millisecond,
			output: "the calling task ended before worker took the task; worker was busy and was never handed it", busyRec: 1, ended: 1500 * time.Millisecond},
		{name: "in flight no answer", send: hangSecond, timing: Timing{Request: 10 * time.Second, InFlight: 6 * time.Second}, at: 1500 * time.Millisecond,
			output: "the calling task ended while an offer to worker was in flight; worker may hold the task", ended: 7500 * time.Millisecond},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				start := time.Now()
				release := make(chan struct{})
				door := &fakeDoor{send: c.send(release), get: c.get, cancel: replies(reply{task: task("tsk_w", a2a.TaskStateCanceled, "")})}
				f := newFixture(t, door, "", 0)
				if c.timing.Request != 0 {
					impls, _ := Tools(Config{Callees: []string{"worker"}, Directory: addresses(), Allow: allowLocalhost(t),
						Timing: Timing{Request: c.timing.Request, InFlight: c.timing.InFlight, Jitter: func() time.Duration { return 0 }}, HTTPClient: f.httpClient()})
					f.call = impls[tool.NameCallMember]
				}
				f.callMember(t, "worker", "x")
				s := f.set(t)
				time.Sleep(c.at)
				synctest.Wait()
				done := abandonAsync(s)
				synctest.Wait()
				close(release)
				recs := <-done
				if got := time.Since(start); got != c.ended {
					t.Errorf("Abandon returned after %v, want %v", got, c.ended)
				}
				if len(recs) != 1 {
					t.Fatalf("Abandon records = %+v, want one member_call", recs)
				}
				mc := rec[trace.MemberCall](t, recs[0])
				if mc.Status != "abandoned" || mc.Output != c.output || mc.Delivered {
					t.Errorf("member_call = %+v\nwant abandoned %q", mc, c.output)
				}
				if held := mc.MemberTaskID != ""; held != c.held {
					t.Errorf("member_call member_task_id present %v, want %v", held, c.held)
				}
				cancels := door.requests(a2a.MethodCancelTask)
				if (len(cancels) == 1) != c.cancel || len(cancels) > 1 {
					t.Errorf("%d CancelTask requests, want cancel %v", len(cancels), c.cancel)
				}
				if c.cancel && len(cancels) == 1 {
					var p a2a.CancelTaskRequest
					_ = json.Unmarshal(cancels[0].params, &p)
					if p.ID != "tsk_w" {
						t.Errorf("CancelTask id %q", p.ID)
					}
				}
				if n := len(tracetest.OfType[trace.MemberCallBusy](t, f.lines(t))); n != c.busyRec {
					t.Errorf("%d member_call_busy from re-offers, want %d", n, c.busyRec)
				}
				if got := f.ts.NoAnswerBelow(); len(got) != 1 || got[0] != (a2a.NoAnswerEntry{Member: "worker", Status: "abandoned"}) {
					t.Errorf("noAnswerBelow = %v, want worker abandoned", got)
				}
				sent := len(door.requests(a2a.MethodSendMessage))
				time.Sleep(time.Minute)
				if n := len(door.requests(a2a.MethodSendMessage)); n != sent {
					t.Errorf("an offer was sent after the calling task ended")
				}
			})
		})
	}
}

// fixed answers every offer with r.
func fixed(r reply) func(<-chan struct{}) func(int) reply {
	return func(<-chan struct{}) func(int) reply { return replies(r) }
}

// inFlight refuses the first offer busy and answers the second with r only
// once release is closed: the calling task ends while it is on its way.
func inFlight(r reply) func(<-chan struct{}) func(int) reply {
	return func(release <-chan struct{}) func(int) reply {
		return func(n int) reply {
			if n == 1 {
				return busy()
			}
			<-release
			return r
		}
	}
}

// hangSecond refuses the first offer busy and never answers the second.
func hangSecond(<-chan struct{}) func(int) reply {
	return replies(busy(), reply{hang: true})
}

// TestAbandonArrived is RND-9 and RND-7: an answer that arrived but was not
// delivered is recorded delivered: false and counts abandoned in the task's
// noAnswerBelow; one delivered before is not recorded again.
func TestAbandonArrived(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		door := &fakeDoor{send: replies(taken("tsk_w")), get: replies(reply{task: completed("tsk_w", "done")})}
		f := newFixture(t, door, "", 0)
		f.callMember(t, "worker", "x")
		s := f.set(t)
		waitOut(t, s, 100*time.Millisecond)
		if !s.Ready() {
			t.Fatal("the arrived answer is not ready")
		}
		recs := s.Abandon()
		if len(recs) != 1 {
			t.Fatalf("records %+v", recs)
		}
		mc := rec[trace.MemberCall](t, recs[0])
		if mc.Status != "completed" || mc.Delivered || mc.Output != "done" {
			t.Errorf("member_call = %+v, want completed, delivered false", mc)
		}
		if got := f.ts.NoAnswerBelow(); len(got) != 1 || got[0].Status != "abandoned" {
			t.Errorf("noAnswerBelow = %v, want worker abandoned", got)
		}
		if again := s.Abandon(); len(again) != 0 {
			t.Errorf("a second Abandon recorded %v", again)
		}
	})
}

// TestWaiter is RND-1's bookkeeping: Outstanding, WaitingText, Changed and
// Ready as answers arrive.
func TestWaiter(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		working := reply{task: task("tsk_w", a2a.TaskStateWorking, "")}
		door := &fakeDoor{send: replies(taken("tsk_w")), get: replies(working, reply{task: completed("tsk_w", "done")})}
		f := newFixture(t, door, "", 2*time.Second)
		f.callMember(t, "worker", "x")
		f.callMember(t, "critic", "y")
		s := f.set(t)
		if s.Outstanding() != 2 || s.WaitingText() != "waiting on call-member: 2 call(s) outstanding" || s.Ready() {
			t.Fatalf("outstanding %d %q ready %v", s.Outstanding(), s.WaitingText(), s.Ready())
		}
		ch := f.ts.Changed()
		time.Sleep(500 * time.Millisecond) // the first reads: one working, one completed
		synctest.Wait()
		select {
		case <-ch:
		default:
			t.Fatal("Changed did not close when an answer arrived")
		}
		if s.Outstanding() != 1 || !s.Ready() || s.WaitingText() != "waiting on call-member: 1 call(s) outstanding" {
			t.Errorf("after one answer: outstanding %d ready %v %q", s.Outstanding(), s.Ready(), s.WaitingText())
		}
		waitOut(t, s, 100*time.Millisecond)
		if s.WaitingText() != "" {
			t.Errorf("WaitingText with nothing out = %q", s.WaitingText())
		}
		d := s.Deliver()
		if d.StatusText != "continuing with 2 member answer(s)" || s.Kind().Field != "member_calls" || len(d.IDs) != 2 || len(d.Records) != 2 {
			t.Errorf("delivery = %+v", d)
		}
		if s.Ready() {
			t.Error("ready after delivery")
		}
		s.Abandon()
	})
}
