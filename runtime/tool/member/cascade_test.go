package member

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/murmur-go/mur/a2a"
	"github.com/murmur-go/mur/runtime/tool"
	"github.com/murmur-go/mur/runtime/trace"
)

// cascadeFixture is newFixture with the roster's cancel: cascade.
func cascadeFixture(t *testing.T, door *fakeDoor, deadline time.Duration) *fixture {
	t.Helper()
	f := newFixture(t, door, "", deadline)
	impls, err := Tools(Config{Callees: []string{"worker", "critic"}, Directory: addresses(), Allow: allowLocalhost(t),
		Deadline: deadline, Timing: Timing{Jitter: func() time.Duration { return 0 }}, HTTPClient: &http.Client{Transport: door},
		Cascade: true})
	if err != nil {
		t.Fatal(err)
	}
	f.call = impls[tool.NameCallMember]
	return f
}

// TestCascade is `cancel: cascade`: a calling task that ends with a
// held call undelivered sends CancelTask for the member's task and records
// cascade_canceled; a member task that had already ended, or a call never
// held, is left alone; with cascade off (TestAbandon's "held") no cancel is
// sent.
func TestCascade(t *testing.T) {
	working := reply{task: task("tsk_w", a2a.TaskStateWorking, "")}
	cases := []struct {
		name     string
		send     func(int) reply
		get      func(int) reply
		cancel   func(int) reply
		deadline time.Duration
		at       time.Duration
		status   string
		output   string
		cancels  int
		cascaded bool
	}{
		{name: "held", send: replies(taken("tsk_w")), get: replies(working), cancel: replies(reply{task: task("tsk_w", a2a.TaskStateCanceled, "")}),
			at: 2 * time.Second, status: "abandoned", cancels: 1, cascaded: true,
			output: "the calling task ended before worker's answer arrived; worker's task was canceled (cancel: cascade)"},
		{name: "timed out, undelivered", send: replies(taken("tsk_w")), get: replies(working), cancel: replies(reply{task: task("tsk_w", a2a.TaskStateCanceled, "")}),
			deadline: 2 * time.Second, at: 3 * time.Second, status: "timed_out", cancels: 1, cascaded: true,
			output: "worker did not answer within 2s. Its task was not cancelled — a call that runs out its bound leaves the task it handed over running — and worker may still be working on it"},
		{name: "ended meanwhile", send: replies(taken("tsk_w")), get: replies(working), cancel: replies(reply{rpcCode: -32002, rpcMsg: "Task cannot be canceled"}),
			at: 2 * time.Second, status: "abandoned", cancels: 1,
			output: "the calling task ended before worker's answer arrived; worker was not cancelled and may still be working"},
		{name: "never held", send: replies(busy()), at: 500 * time.Millisecond, status: "abandoned", cancels: 0,
			output: "the calling task ended before worker took the task; worker was busy and was never handed it"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				door := &fakeDoor{send: c.send, get: c.get, cancel: c.cancel}
				f := cascadeFixture(t, door, c.deadline)
				f.callMember(t, "worker", "x")
				s := f.set(t)
				time.Sleep(c.at)
				synctest.Wait()
				recs := s.Abandon()
				if len(recs) != 1 {
					t.Fatalf("Abandon records = %+v, want one member_call", recs)
				}
				mc := rec[trace.MemberCall](t, recs[0])
				if mc.Status != c.status || mc.Output != c.output || mc.Delivered || mc.CascadeCanceled != c.cascaded {
					t.Errorf("member_call = %+v\nwant %s %q cascade_canceled %v", mc, c.status, c.output, c.cascaded)
				}
				cancels := door.requests(a2a.MethodCancelTask)
				if len(cancels) != c.cancels {
					t.Fatalf("%d CancelTask requests, want %d", len(cancels), c.cancels)
				}
				for _, r := range cancels {
					var p a2a.CancelTaskRequest
					_ = json.Unmarshal(r.params, &p)
					if p.ID != "tsk_w" || r.header.Get("Authorization") != "Bearer tok-member" {
						t.Errorf("CancelTask %+v with %q, want tsk_w with the member token", p, r.header.Get("Authorization"))
					}
				}
				b, _ := trace.Marshal(mc)
				if !c.cascaded && strings.Contains(string(b), "cascade_canceled") {
					t.Errorf("member_call %s names cascade_canceled though nothing was canceled", b)
				}
			})
		})
	}
}

// TestCascadeDelivered: a call whose answer was delivered leaves nothing to
// cascade when the task then ends.
func TestCascadeDelivered(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		door := &fakeDoor{send: replies(taken("tsk_w")), get: replies(reply{task: completed("tsk_w", "done")})}
		f := cascadeFixture(t, door, 0)
		f.callMember(t, "worker", "x")
		if err := f.ts.Wait(t.Context(), func(string) {}); err != nil {
			t.Fatal(err)
		}
		f.ts.Deliver()
		if recs := f.set(t).Abandon(); len(recs) != 0 {
			t.Errorf("Abandon after delivery = %+v, want nothing", recs)
		}
		if n := len(door.requests(a2a.MethodCancelTask)); n != 0 {
			t.Errorf("%d CancelTask requests after a delivered answer", n)
		}
	})
}
