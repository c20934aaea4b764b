package e2e

import (
	"context"
	"testing"
	"time"

	"github.com/murmur-go/mur/a2a"
	"github.com/murmur-go/mur/runtime/trace"
)

const askExtra = "artifacts:\n  - {name: murmur-tool-request-input, version: \"1.0.0\"}\nlifecycle:\n  task_acceptance: queue\n  after_task: sleep\n"

// startAsking sends a task whose harness asks the operator through the
// bridged murmur-tool-request-input and waits until it is parked.
func startAsking(t *testing.T, s *sleeping) a2a.TaskID {
	t.Helper()
	res, err := s.cl.SendMessage(context.Background(), a2a.SendMessageRequest{Message: a2a.Message{MessageID: a2a.NewID(a2a.PrefixMessage),
		Role: a2a.RoleUser, Parts: []a2a.Part{a2a.TextPart("ask")}}, Configuration: &a2a.SendMessageConfiguration{ReturnImmediately: true}})
	if err != nil {
		t.Fatal(err)
	}
	// The stream's first event is the task as it stands, then its updates:
	// stop at INPUT_REQUIRED, whether it was already parked or parks later.
	for ev, err := range s.cl.SubscribeToTask(context.Background(), a2a.SubscribeToTaskRequest{ID: res.Task.ID}) {
		if err != nil {
			t.Fatal(err)
		}
		if ev.Task != nil && ev.Task.Status.State == a2a.TaskStateInputRequired ||
			ev.StatusUpdate != nil && ev.StatusUpdate.Status.State == a2a.TaskStateInputRequired {
			break
		}
	}
	return res.Task.ID
}

// inactivity is the harness inactivity window the BRG-8 tests run under:
// short, so that waiting past it twice costs a test little.
const inactivity = time.Second

// TestRequestInputBridged is input.md INP-12 under transport: process: the
// harness's bridged call parks the task INPUT_REQUIRED, a SendMessage
// naming it answers the call with the fenced reply, and the inactivity
// window waits with it (BRG-8): the reply comes more than twice the window
// after the park, and the run still completes.
func TestRequestInputBridged(t *testing.T) {
	t.Parallel()
	c := newCap(t, "claude", "", askExtra, `{"runs":[{"steps":[
		{"tool":{"name":"murmur-tool-request-input","args":{"prompt":"Which branch?"}}},{"answer":"done asking"}]}]}`)
	c.env = append(c.env, "MURMUR_TEST_HARNESS_LIMITS=inactivity="+inactivity.String()+",grace=300ms")
	s := c.serve(t)
	id := startAsking(t, s)
	// The claim is about time: a window that ran while the call waits would
	// have interrupted the harness by now.
	time.Sleep(2*inactivity + inactivity/2)
	got, err := s.cl.GetTask(context.Background(), a2a.GetTaskRequest{ID: id})
	if err != nil || got.Status.State != a2a.TaskStateInputRequired {
		t.Fatalf("task = %+v, %v; want INPUT_REQUIRED still, %s after the park", got, err, 2*inactivity+inactivity/2)
	}
	res, err := s.cl.SendMessage(context.Background(), a2a.SendMessageRequest{Message: a2a.Message{MessageID: a2a.NewID(a2a.PrefixMessage),
		TaskID: id, Role: a2a.RoleUser, Parts: []a2a.Part{a2a.TextPart("release from main")}}})
	if err != nil || res.Task.Status.State != a2a.TaskStateCompleted {
		t.Fatalf("reply = %+v, %v; want the task completed", res, err)
	}
	s.stop(t)
	recs := records(t, s.r.RecordsDir)
	tc := only[trace.ToolCall](t, recs)
	if tc.Status != "ok" || *tc.Output != "<untrusted-content source=tool:murmur-tool-request-input>\nrelease from main\n</untrusted-content>" ||
		tc.ToolCallID == nil || *tc.ToolCallID != "toolu_fake_1" {
		t.Errorf("tool_call = %+v %q", tc, *tc.Output)
	}
	if rq := only[trace.InputRequest](t, recs); rq.ToolCallID == nil || *rq.ToolCallID != "toolu_fake_1" {
		t.Errorf("input_request = %+v", rq)
	}
	if ex := only[trace.HarnessExit](t, recs); ex.Cause != "completed" {
		t.Errorf("harness_exit = %+v: the wait must not count as inactivity", ex)
	}
	if f := of[trace.HarnessFailed](t, recs); len(f) != 0 {
		t.Errorf("harness_failed = %+v: the wait must not count as inactivity", f)
	}
}

// TestBridgedCallOutlastsInactivity_BRG8: a bridged tool call that runs three
// times the inactivity window (sleep 3 under a 1 s window) is no inactivity:
// the run completes with the call's answer, and nothing interrupted it.
func TestBridgedCallOutlastsInactivity_BRG8(t *testing.T) {
	t.Parallel()
	c := newCap(t, "claude", "", "", `{"runs":[{"steps":[
		{"tool":{"name":"sleep","args":{"command":"3"}}},{"answer":"slept"}]}]}`)
	c.env = append(c.env, "MURMUR_TEST_HARNESS_LIMITS=inactivity="+inactivity.String()+",grace=300ms")
	r, _, stderr, code := c.run(t, "sleep")
	if res := result(t, r); code != 0 || res != "slept" {
		t.Fatalf("mur run = %d, result %q, stderr %s; want 0 and the answer", code, res, stderr)
	}
	recs := records(t, r.RecordsDir)
	if tc := only[trace.ToolCall](t, recs); tc.ToolName != "sleep" || tc.Status != "ok" {
		t.Errorf("tool_call = %+v, want sleep ok", tc)
	}
	if ex := only[trace.HarnessExit](t, recs); ex.Cause != "completed" {
		t.Errorf("harness_exit = %+v: a call in flight must not count as inactivity", ex)
	}
	if f := of[trace.HarnessFailed](t, recs); len(f) != 0 {
		t.Errorf("harness_failed = %+v: a call in flight must not count as inactivity", f)
	}
}

// TestRequestInputTimeoutBridged is INP-7 under transport: process: the
// timeout answers the call isError, fails the attempt input-timeout and
// interrupts the run.
func TestRequestInputTimeoutBridged(t *testing.T) {
	t.Parallel()
	c := newCap(t, "claude", "", askExtra+"  input_timeout_secs: 1\n", `{"runs":[{"steps":[
		{"tool":{"name":"murmur-tool-request-input","args":{"prompt":"Which branch?"}}},{"sleep":"30s"},{"answer":"never"}]}]}`)
	s := c.serve(t)
	id := startAsking(t, s)
	for range s.cl.SubscribeToTask(context.Background(), a2a.SubscribeToTaskRequest{ID: id}) {
	}
	got, err := s.cl.GetTask(context.Background(), a2a.GetTaskRequest{ID: id})
	if err != nil || got.Status.State != a2a.TaskStateFailed || text(got) != "input-timeout" {
		t.Fatalf("task = %+v %q, %v; want FAILED input-timeout", got.Status.State, text(got), err)
	}
	s.stop(t)
	recs := records(t, s.r.RecordsDir)
	if f := only[trace.TaskFailed](t, recs); f.Cause != "input_timeout" || f.Reason != "input-timeout" {
		t.Errorf("task_failed = %+v", f)
	}
	if tc := only[trace.ToolCall](t, recs); tc.Status != "error" {
		t.Errorf("tool_call = %+v", tc)
	}
	if ex := only[trace.HarnessExit](t, recs); ex.Cause != "interrupted" {
		t.Errorf("harness_exit = %+v, want interrupted", ex)
	}
}

// TestRequestInputCancelBridged is INP-8 under transport: process: a
// CancelTask while the bridged murmur-tool-request-input waits ends the task
// CANCELED in phase input, the harness interrupted and gone.
func TestRequestInputCancelBridged(t *testing.T) {
	t.Parallel()
	c := newCap(t, "claude", "", askExtra, `{"runs":[{"steps":[
		{"tool":{"name":"murmur-tool-request-input","args":{"prompt":"Which branch?"}}},{"answer":"never"}]}]}`)
	s := c.serve(t)
	id := startAsking(t, s)
	if _, err := s.cl.CancelTask(context.Background(), a2a.CancelTaskRequest{ID: id}); err != nil {
		t.Fatal(err)
	}
	for range s.cl.SubscribeToTask(context.Background(), a2a.SubscribeToTaskRequest{ID: id}) {
	}
	got, err := s.cl.GetTask(context.Background(), a2a.GetTaskRequest{ID: id})
	if err != nil || got.Status.State != a2a.TaskStateCanceled {
		t.Fatalf("task = %+v, %v; want CANCELED", got, err)
	}
	s.stop(t) // proves nothing the run started is left
	recs := records(t, s.r.RecordsDir)
	if tc := only[trace.TaskCanceled](t, recs); tc.Phase != "input" {
		t.Errorf("task_canceled = %+v, want phase input (INP-8)", tc)
	}
	if ex := only[trace.HarnessExit](t, recs); ex.Cause != "interrupted" {
		t.Errorf("harness_exit = %+v, want interrupted", ex)
	}
	if len(of[trace.InputReply](t, recs)) != 0 {
		t.Error("an input_reply was written for a canceled wait")
	}
}
