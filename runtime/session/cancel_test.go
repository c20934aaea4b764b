package session

import (
	"context"
	"fmt"
	"testing"
	"testing/synctest"
	"time"

	"github.com/murmur-go/mur/a2a"
	"github.com/murmur-go/mur/runtime/driver"
	"github.com/murmur-go/mur/runtime/tasktable"
	"github.com/murmur-go/mur/runtime/trace"
)

// blockingDriver signals each call on started and blocks until ctx ends.
func blockingDriver(started chan<- struct{}) *fakeDriver {
	return &fakeDriver{reply: func(ctx context.Context, _ int, _ *driver.Request) (*driver.Response, error) {
		started <- struct{}{}
		<-ctx.Done()
		return nil, ctx.Err()
	}}
}

// cancelInInference runs a sleeping queue capsule whose one task is
// canceled by CancelTask while its inference call blocks, then stops the
// session by signal; it returns the session, the task and Run's result.
func cancelInInference(t *testing.T) (*Session, a2a.Task, Result) {
	t.Helper()
	dir := writeCapsule(t, fmt.Sprintf(scriptedManifest, ""), "script_version: 1\nrules: []\n")
	l := prepareIn(t, dir, nil, func(o *Options) { o.Acceptance, o.AfterTask = "queue", "sleep" })
	started := make(chan struct{}, 1) // buffered: one call
	l.Drivers["primary"] = blockingDriver(started)
	s := startIn(t, l, nil, nil)
	done := make(chan Result, 1) // buffered: Run's goroutine never blocks
	go func() { done <- s.Run() }()
	tk, _, err := s.Registry().Send(tasktable.SendRequest{Prov: tasktable.Provenance{Origin: a2a.OriginUser, Trust: a2a.TrustTrusted, Source: "a2a"}, Message: userMsg("wait")})
	if err != nil {
		t.Fatal(err)
	}
	<-started
	if _, err := s.Registry().Cancel(tasktable.Caller{}, tk.ID); err != nil {
		t.Fatal(err)
	}
	s.Stop(BySignal)
	return s, tk, <-done
}

func TestCancelDuringInference_LOOP16(t *testing.T) {
	s, tk, res := cancelInInference(t)
	if res.ExitStatus != StatusOK {
		t.Errorf("exit status = %q: a task cancelled by CancelTask on a sleeping capsule does not decide", res.ExitStatus)
	}
	recs := readTrace(t, s)
	tc := of[trace.TaskCanceled](t, recs)
	if len(tc) != 1 || tc[0].Phase != "inference" || tc[0].Turn == nil || *tc[0].Turn != 0 {
		t.Errorf("task_canceled = %+v", tc)
	}
	if got := resultTxt(t, s); got != "canceled: CancelTask" {
		t.Errorf("result.txt = %q", got)
	}
	got, _ := s.Registry().Get(tasktable.Caller{}, tk.ID, nil)
	if got.Status.State != a2a.TaskStateCanceled {
		t.Errorf("state = %s", got.Status.State)
	}
	if got, want := types(recs), "session_start,a2a_task_received,task_start,task_canceled,task_end,session_end"; got != want {
		t.Errorf("trace = %s, want %s", got, want)
	}
}

func TestStopDuringTask_SES8(t *testing.T) {
	dir := writeCapsule(t, fmt.Sprintf(scriptedManifest, "lifecycle:\n  task_acceptance: queue\n  queue_depth: 2\n"), "script_version: 1\nrules: []\n")
	l := prepareIn(t, dir, ptr("first"), nil)
	started := make(chan struct{}, 1) // buffered: one call
	l.Drivers["primary"] = blockingDriver(started)
	s := startIn(t, l, nil, nil)
	done := make(chan Result, 1) // buffered: Run's goroutine never blocks
	go func() { done <- s.Run() }()
	<-started
	queued, _, err := s.Registry().Send(tasktable.SendRequest{Prov: tasktable.Provenance{Origin: a2a.OriginUser, Trust: a2a.TrustTrusted, Source: "a2a"}, Message: userMsg("second")})
	if err != nil {
		t.Fatal(err)
	}
	s.Stop(BySignal)
	res := <-done
	if res.ExitStatus != StatusCanceled || res.Text != "canceled: SIGTERM" {
		t.Errorf("Run = %+v", res)
	}
	if BareReason(res.Text) != "SIGTERM" {
		t.Errorf("BareReason = %q", BareReason(res.Text))
	}
	recs := readTrace(t, s)
	if got, want := types(recs), "session_start,task_start,a2a_task_received,task_canceled,task_end,task_rejected,session_end"; got != want {
		t.Errorf("trace = %s, want %s (SES-8 order)", got, want)
	}
	rj := of[trace.TaskRejected](t, recs)[0]
	if rj.Cause != "session_ended" || rj.TaskID != string(queued.ID) || rj.Source != "a2a" {
		t.Errorf("task_rejected = %+v", rj)
	}
	q, _ := s.Registry().Get(tasktable.Caller{}, queued.ID, nil)
	if q.Status.State != a2a.TaskStateRejected || a2a.Text(q.Status.Message.Parts) != "task rejected: the session was stopped before this task started" {
		t.Errorf("queued task = %+v", q.Status)
	}
	if se := of[trace.SessionEnd](t, recs)[0]; se.ExitStatus != "canceled" {
		t.Errorf("session_end = %+v", se)
	}
}

func TestStopWhileIdle_SES8(t *testing.T) {
	dir := writeCapsule(t, fmt.Sprintf(scriptedManifest, "lifecycle:\n  task_acceptance: queue\n  after_task: sleep\n"), "script_version: 1\nrules: []\n")
	s := startIn(t, prepareIn(t, dir, nil, nil), nil, nil)
	done := make(chan Result, 1) // buffered: Run's goroutine never blocks
	go func() { done <- s.Run() }()
	s.Stop(BySignal)
	if res := <-done; res.ExitStatus != StatusOK || res.Err != nil {
		t.Errorf("Run = %+v", res)
	}
	if got := types(readTrace(t, s)); got != "session_start,session_end" {
		t.Errorf("trace = %s", got)
	}
}

func TestNoTaskWaitsThenEndsOK_LOOP3(t *testing.T) {
	dir := writeCapsule(t, fmt.Sprintf(scriptedManifest, ""), "script_version: 1\nrules: []\n")
	l := prepareIn(t, dir, nil, func(o *Options) { o.Getenv = testEnv(map[string]string{"MURMUR_A2A_TIMEOUT_SECS": "1"}) })
	s := startIn(t, l, nil, nil)
	if res := s.Run(); res.ExitStatus != StatusOK {
		t.Errorf("Run = %+v", res)
	}
	if got := types(readTrace(t, s)); got != "session_start,session_end" {
		t.Errorf("trace = %s", got)
	}
}

func TestNoneWithoutTask_SES4(t *testing.T) {
	dir := writeCapsule(t, fmt.Sprintf(scriptedManifest, "lifecycle:\n  task_acceptance: none\n"), "script_version: 1\nrules: []\n")
	s := startIn(t, prepareIn(t, dir, nil, nil), nil, nil)
	if res := s.Run(); res.ExitStatus != StatusOK {
		t.Errorf("Run = %+v", res)
	}
}

// TestDeadlineReached_SES7 runs in a synctest bubble: the deadline's timer
// fires only once every goroutine of the session waits, that is once the
// task blocks in its inference call, however long the setup took.
func TestDeadlineReached_SES7(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dir := writeCapsule(t, fmt.Sprintf(scriptedManifest, ""), "script_version: 1\nrules: []\n")
		deadline := time.Now().Add(500 * time.Millisecond)
		l := prepareIn(t, dir, ptr("slow"), func(o *Options) { o.Deadline = &deadline })
		started := make(chan struct{}, 1) // buffered: one call
		l.Drivers["primary"] = blockingDriver(started)
		s := startIn(t, l, nil, nil)
		res := s.Run()
		if res.ExitStatus != StatusCanceled || res.Text != "canceled: deadline" {
			t.Errorf("Run = %+v", res)
		}
		recs := readTrace(t, s)
		dr := of[trace.DeadlineReached](t, recs)
		if len(dr) != 1 {
			t.Fatalf("deadline_reached = %+v", dr)
		}
		ids := dr[0].LiveTaskIDs
		if len(ids) != 1 || ids[0] != of[trace.TaskStart](t, recs)[0].TaskID {
			t.Errorf("live_task_ids = %v", ids)
		}
		if got, want := types(recs), "session_start,task_start,deadline_reached,task_canceled,task_end,session_end"; got != want {
			t.Errorf("trace = %s, want %s", got, want)
		}
	})
}
