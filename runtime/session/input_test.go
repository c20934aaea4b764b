package session

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/murmur-go/mur/a2a"
	"github.com/murmur-go/mur/internal/golden"
	"github.com/murmur-go/mur/runtime/diag"
	"github.com/murmur-go/mur/runtime/driver"
	"github.com/murmur-go/mur/runtime/tasktable"
	"github.com/murmur-go/mur/runtime/trace"
)

// askManifest declares the built-in request-input beside a lifecycle block.
func askManifest(lifecycle string) string {
	return fmt.Sprintf(scriptedManifest, "artifacts:\n  - name: murmur/murmur-tool-request-input\n    version: \"2.1.0\"\n    config: {ignored: true}\n"+lifecycle)
}

// askingDriver asks prompt in its first turn and echoes the last message
// (the tool's result) in its second.
func askingDriver(prompt string) *fakeDriver {
	return &fakeDriver{reply: func(_ context.Context, n int, req *driver.Request) (*driver.Response, error) {
		if n == 0 {
			return toolReply("call_ask", "murmur-tool-request-input", fmt.Sprintf(`{"prompt":%q}`, prompt)), nil
		}
		return textReply("answer: " + lastText(*req)), nil
	}}
}

// asking is a session whose one queued task sits in the loop: startAsk
// sends it with a subscription that ends once the task is INPUT_REQUIRED.
type asking struct {
	s       *Session
	d       *fakeDriver
	task    a2a.Task
	done    chan Result
	results *syncBuf // each task's SES-5 text as it ends, on results.ch
}

func startAsk(t *testing.T, lifecycle string, d *fakeDriver) *asking {
	t.Helper()
	dir := writeCapsule(t, askManifest(lifecycle), "script_version: 1\nrules: []\n")
	l := prepareIn(t, dir, nil, func(o *Options) { o.Acceptance, o.AfterTask = "queue", "sleep" })
	l.Drivers["primary"] = d
	results := &syncBuf{ch: make(chan string, 4)}                                                    // buffered: a test reads at most two task ends
	a := &asking{s: startIn(t, l, results, nil), d: d, done: make(chan Result, 1), results: results} // done buffered: Run's goroutine never blocks
	go func() { a.done <- a.s.Run() }()
	tk, sub, err := a.s.Registry().Send(tasktable.SendRequest{Prov: tasktable.Provenance{Origin: a2a.OriginUser, Trust: a2a.TrustTrusted, Source: "a2a"},
		Message: userMsg("release?"), Subscribe: true})
	if err != nil {
		t.Fatal(err)
	}
	a.task = tk
	var last a2a.TaskState
	for ev := range sub.Events() { // closes after the INPUT_REQUIRED statusUpdate (SSE-3)
		if ev.StatusUpdate != nil {
			last = ev.StatusUpdate.Status.State
		}
	}
	if last != a2a.TaskStateInputRequired {
		t.Fatalf("the task's stream ended at %s, want TASK_STATE_INPUT_REQUIRED", last)
	}
	return a
}

// stop ends the sleeping session and returns its trace.
func (a *asking) stop(t *testing.T) []trace.Line {
	t.Helper()
	a.s.Stop(BySignal)
	<-a.done
	return readTrace(t, a.s)
}

func (a *asking) reply(c tasktable.Caller, text string) (a2a.Task, error) {
	m := userMsg(text)
	m.TaskID = a.task.ID
	tk, _, err := a.s.Registry().Send(tasktable.SendRequest{Caller: c, Prov: tasktable.Provenance{Origin: a2a.OriginEvent, Trust: a2a.TrustUntrusted, Source: "a2a"}, Message: m})
	return tk, err
}

// TestRequestInputReply_INP5 is INP-4, INP-5, INP-10 and INP-13 in the
// loop: the task waits INPUT_REQUIRED with its prompt; the reply answers
// WORKING, the next driver request carries it fenced, the task completes,
// and input_request (under the turn), input_reply, tool_call follow in order.
func TestRequestInputReply_INP5(t *testing.T) {
	a := startAsk(t, "", askingDriver("Which branch?"))
	got, err := a.s.Registry().Get(tasktable.Caller{}, a.task.ID, nil)
	if err != nil || got.Status.State != a2a.TaskStateInputRequired || len(got.Artifacts) != 1 ||
		got.Artifacts[0].ArtifactID != a2a.ArtifactPrompt || a2a.Text(got.Artifacts[0].Parts) != "Which branch?" ||
		got.Status.Message == nil || a2a.Text(got.Status.Message.Parts) != "Which branch?" {
		t.Fatalf("GetTask while waiting = %+v, %v", got, err)
	}
	if n := len(a.d.requests()); n != 1 {
		t.Errorf("driver calls while waiting = %d, want 1 (INP-4: none while it waits)", n)
	}
	ans, err := a.reply(tasktable.Caller{Credential: "operator"}, "release from main")
	if err != nil || ans.Status.State != a2a.TaskStateWorking {
		t.Fatalf("reply = %s, %v; want WORKING", ans.Status.State, err)
	}
	if ended := <-a.results.ch; ended != "answer: <untrusted-content source=tool:murmur-tool-request-input>\nrelease from main\n</untrusted-content>\n" {
		t.Errorf("the task ended %q", ended)
	}
	recs := a.stop(t)
	reqs := a.d.requests()
	if len(reqs) != 2 {
		t.Fatalf("driver calls = %d, want 2", len(reqs))
	}
	golden.Check(t, "input_reply_result", lastText(reqs[1]))
	end, _ := a.s.Registry().Get(tasktable.Caller{}, a.task.ID, nil)
	if end.Status.State != a2a.TaskStateCompleted {
		t.Errorf("state = %s, want COMPLETED", end.Status.State)
	}
	if got, want := types(recs), "session_start,a2a_task_received,task_start,inference,input_request,input_reply,tool_call,inference,task_end,session_end"; got != want {
		t.Errorf("trace = %s\nwant    %s (INP-10)", got, want)
	}
	inf := lines[trace.Inference](recs)[0]
	rq := lines[trace.InputRequest](recs)[0]
	start := lines[trace.TaskStart](recs)[0]
	if rq.ParentID == nil || *rq.ParentID != inf.EventID {
		t.Errorf("input_request parent = %v, want the turn %s (TRACE-2)", rq.ParentID, inf.EventID)
	}
	if rp := lines[trace.InputReply](recs)[0]; rp.ParentID == nil || *rp.ParentID != start.EventID {
		t.Errorf("input_reply parent = %v, want the task %s", rp.ParentID, start.EventID)
	}
	req := of[trace.InputRequest](t, recs)[0]
	if req.Turn != 0 || req.TaskID != string(a.task.ID) || req.ToolCallID == nil || *req.ToolCallID != "call_ask" || req.PromptBytes != len("Which branch?") || req.TimeoutSecs != nil {
		t.Errorf("input_request = %+v", req)
	}
	rp := of[trace.InputReply](t, recs)[0]
	if rp.Origin != "event" || rp.Trust != "untrusted" || rp.CallerMember != "" || rp.ReplyBytes != len("release from main") || rp.MessageID == "" {
		t.Errorf("input_reply = %+v", rp)
	}
	tc := of[trace.ToolCall](t, recs)[0]
	if tc.Status != "ok" || tc.Summary != "murmur-tool-request-input: replied" || tc.DurationMS < rp.WaitedMS {
		t.Errorf("tool_call = %+v, want ok with the wait in its duration (INP-10)", tc)
	}
	ss := of[trace.SessionStart](t, recs)[0]
	if !strings.Contains(strings.Join(ss.ToolsDeclared, ","), "murmur-tool-request-input") {
		t.Errorf("tools_declared = %v, want murmur-tool-request-input (INP-1)", ss.ToolsDeclared)
	}
	staged, err := os.ReadFile(filepath.Join(a.s.RuntimeDir(), "tools", "murmur-tool-request-input", "murmur.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "input_staged_manifest", string(staged))
}

// TestRequestInputOneReply_INP6 is INP-6 and INP-9: a second reply is
// -32004; a task queued meanwhile waits SUBMITTED behind the parked one.
func TestRequestInputOneReply_INP6(t *testing.T) {
	d := askingDriver("q")
	a := startAsk(t, "", d)
	queued, _, err := a.s.Registry().Send(tasktable.SendRequest{Prov: tasktable.Provenance{Origin: a2a.OriginUser, Trust: a2a.TrustTrusted, Source: "a2a"}, Message: userMsg("next")})
	if err != nil {
		t.Fatal(err)
	}
	if q, _ := a.s.Registry().Get(tasktable.Caller{}, queued.ID, nil); q.Status.State != a2a.TaskStateSubmitted {
		t.Errorf("queued task = %s while the first waits, want SUBMITTED (INP-9)", q.Status.State)
	}
	if _, err := a.reply(tasktable.Caller{}, "one"); err != nil {
		t.Fatal(err)
	}
	if _, err := a.reply(tasktable.Caller{}, "two"); !errors.Is(err, a2a.ErrUnsupportedOperation) {
		t.Errorf("second reply error = %v, want -32004 (INP-6)", err)
	}
	<-a.results.ch // the first task ends
	<-a.results.ch // then the queued one (the driver asks only in its first call)
	recs := a.stop(t)
	if n := len(of[trace.InputReply](t, recs)); n != 1 {
		t.Errorf("input_reply records = %d, want 1: the refused reply records none (INP-6)", n)
	}
	if te := of[trace.TaskEnd](t, recs); len(te) != 2 || te[0].Turns != 2 {
		t.Errorf("task_end = %+v, want 2 turns: the wait counts none (INP-9)", te)
	}
}

// TestRequestInputTimeout_INP7: no reply within input_timeout_secs fails the
// task input-timeout, with no further inference call.
func TestRequestInputTimeout_INP7(t *testing.T) {
	a := startAsk(t, "lifecycle:\n  input_timeout_secs: 1\n", askingDriver("q"))
	if ended := <-a.results.ch; ended != "error: input-timeout\n" {
		t.Errorf("the task ended %q", ended)
	}
	got, _ := a.s.Registry().Get(tasktable.Caller{}, a.task.ID, nil)
	if got.Status.State != a2a.TaskStateFailed || got.Status.Message == nil || a2a.Text(got.Status.Message.Parts) != "input-timeout" {
		t.Errorf("ended = %+v, want FAILED with status message exactly input-timeout", got.Status)
	}
	recs := a.stop(t)
	if n := len(a.d.requests()); n != 1 {
		t.Errorf("driver calls = %d, want 1: the attempt ends with no further inference call", n)
	}
	if got := resultTxt(t, a.s); got != "error: input-timeout" {
		t.Errorf("result.txt = %q", got)
	}
	tf := of[trace.TaskFailed](t, recs)
	if len(tf) != 1 || tf[0].Cause != "input_timeout" || tf[0].Reason != "input-timeout" {
		t.Errorf("task_failed = %+v", tf)
	}
	it := of[trace.InputTimeout](t, recs)
	if len(it) != 1 || it[0].TimeoutSecs != 1 || it[0].WaitedMS < 1000 {
		t.Errorf("input_timeout = %+v", it)
	}
	tc := of[trace.ToolCall](t, recs)[0]
	if tc.Status != "error" || tc.Summary != "murmur-tool-request-input: timed out" {
		t.Errorf("tool_call = %+v", tc)
	}
	if got, want := types(recs), "session_start,a2a_task_received,task_start,inference,input_request,input_timeout,tool_call,task_failed,task_end,session_end"; got != want {
		t.Errorf("trace = %s\nwant    %s", got, want)
	}
}

// TestRequestInputCancel_INP8: CancelTask while waiting → CANCELED, phase input.
func TestRequestInputCancel_INP8(t *testing.T) {
	a := startAsk(t, "", askingDriver("q"))
	if c, err := a.s.Registry().Cancel(tasktable.Caller{}, a.task.ID); err != nil || c.Status.State != a2a.TaskStateCanceled {
		t.Fatalf("CancelTask = %s, %v", c.Status.State, err)
	}
	recs := a.stop(t)
	tc := of[trace.TaskCanceled](t, recs)
	if len(tc) != 1 || tc[0].Phase != "input" {
		t.Errorf("task_canceled = %+v, want phase input", tc)
	}
	call := of[trace.ToolCall](t, recs)[0]
	if call.Status != "error" || call.Summary != "murmur-tool-request-input: canceled" {
		t.Errorf("tool_call = %+v", call)
	}
	if n := len(a.d.requests()); n != 1 {
		t.Errorf("driver calls = %d, want 1", n)
	}
}

// TestRequestInputRefusals_INP4: a missing, non-string or blank prompt is
// refused unfenced and parks nothing.
func TestRequestInputRefusals_INP4(t *testing.T) {
	for _, in := range []string{`{}`, `{"prompt":7}`, `{"prompt":"  \n"}`} {
		d := &fakeDriver{reply: func(_ context.Context, n int, req *driver.Request) (*driver.Response, error) {
			if n == 0 {
				return toolReply("c1", "murmur-tool-request-input", in), nil
			}
			return textReply("got: " + lastText(*req)), nil
		}}
		dir := writeCapsule(t, askManifest(""), "script_version: 1\nrules: []\n")
		l := prepareIn(t, dir, ptr("go"), nil)
		l.Drivers["primary"] = d
		results := &syncBuf{}
		s := startIn(t, l, results, nil)
		s.Run()
		if want := "got: 'murmur-tool-request-input' needs prompt: the question to put to the operator\n"; results.String() != want {
			t.Errorf("input %s: answer = %q, want %q", in, results.String(), want)
		}
		recs := readTrace(t, s)
		if n := len(of[trace.InputRequest](t, recs)); n != 0 {
			t.Errorf("input %s: %d input_request records for a refusal", in, n)
		}
		if tc := of[trace.ToolCall](t, recs)[0]; tc.Summary != "murmur-tool-request-input: refused" {
			t.Errorf("input %s: tool_call = %+v", in, tc)
		}
	}
}

// TestRequestInputNeedsReplies_INP2: under task_acceptance none (in the
// manifest or by override) the declaration is refused E-MAN-003.
func TestRequestInputNeedsReplies_INP2(t *testing.T) {
	dir := writeCapsule(t, askManifest("lifecycle:\n  task_acceptance: none\n"), "script_version: 1\nrules: []\n")
	_, err := Prepare(Options{ManifestPath: filepath.Join(dir, "murmur.yaml"), Getenv: testEnv(nil), Cwd: dir, Version: "0.1.0"})
	d, ok := diag.As(err)
	if !ok || d.Code != diag.EMAN003 {
		t.Fatalf("Prepare error = %v, want E-MAN-003", err)
	}
	got := strings.ReplaceAll(d.Msg, dir, "<dir>")
	dir2 := writeCapsule(t, askManifest(""), "script_version: 1\nrules: []\n")
	_, err = Prepare(Options{ManifestPath: filepath.Join(dir2, "murmur.yaml"), Getenv: testEnv(nil), Cwd: dir2, Version: "0.1.0", Acceptance: "none"})
	d2, ok := diag.As(err)
	if !ok || d2.Code != diag.EMAN003 {
		t.Fatalf("Prepare --lifecycle-task-acceptance none error = %v, want E-MAN-003", err)
	}
	golden.Check(t, "input_unserved", got+"\n"+d2.Msg+"\n")
}

// TestRequestInputBuiltIn_INP1: the entry is never resolved or locked — a
// project lock without it and no store copy still runs.
func TestRequestInputBuiltIn_INP1(t *testing.T) {
	dir := writeCapsule(t, askManifest(""), "script_version: 1\nrules: []\n")
	if err := os.WriteFile(filepath.Join(dir, "murmur.lock"), []byte("lock_version: 1\nartifacts: []\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	l := prepareIn(t, dir, ptr("go"), nil)
	if len(l.Artifacts) != 0 {
		t.Errorf("resolved artifacts = %d, want none: the built-in is not looked up", len(l.Artifacts))
	}
}
