package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/murmur-go/mur/a2a"
	"github.com/murmur-go/mur/a2a/client"
	"github.com/murmur-go/mur/internal/testmur"
	"github.com/murmur-go/mur/runtime/trace"
)

// sleeping is a `mur run --json` of a capsule that takes door tasks and
// sleeps between them (queue + sleep), started through testmur.StartLines.
type sleeping struct {
	cmd    *exec.Cmd
	r      readiness
	cl     *client.Client
	stderr *testmur.Buffer
	done   <-chan struct{} // closed once the process is reaped
}

// serve starts mur run --json without a task and reads its readiness line.
func (c *hcap) serve(t *testing.T) *sleeping {
	t.Helper()
	return c.serveWith(t)
}

// serveWith is serve with more flags for mur run.
func (c *hcap) serveWith(t *testing.T, flags ...string) *sleeping {
	t.Helper()
	cmd := c.command(append([]string{"run", "--json"}, flags...)...)
	ln := testmur.StartLines(t, cmd)
	s := &sleeping{cmd: cmd, stderr: ln.Stderr, done: ln.Done()}
	s.r = ln.Ready(t)
	t.Cleanup(func() { s.stop(t) }) // before the kit's SIGKILL: an orderly end
	var err error
	s.cl, err = client.New(client.Config{BaseURL: s.r.URL})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// send sends text in context ctxID and waits for the task's end
// (a blocking SendMessage).
func (s *sleeping) send(t *testing.T, ctxID, text string, opts ...client.CallOption) (*a2a.Task, error) {
	t.Helper()
	res, err := s.cl.SendMessage(context.Background(), a2a.SendMessageRequest{Message: a2a.Message{MessageID: a2a.NewID(a2a.PrefixMessage),
		ContextID: a2a.ContextID(ctxID), Role: a2a.RoleUser, Parts: []a2a.Part{a2a.TextPart(text)}}}, opts...)
	if err != nil {
		return nil, err
	}
	return res.Task, nil
}

// stop ends the session with SIGTERM, waits, and proves nothing is left.
func (s *sleeping) stop(t *testing.T) {
	t.Helper()
	select {
	case <-s.done:
		return // ended already: the test that saw it end proves what is left
	default:
	}
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	<-s.done
	noneLeft(t, s.cmd.Process.Pid)
}

// interruptBound bounds how long an interrupted harness takes to be gone:
// the 10 s grace it has to exit on SIGTERM (PROC-16), and as much again for
// a loaded machine. A harness never interrupted runs on past it (the tests'
// bridged sleep 30).
const interruptBound = 20 * time.Second

// harnessGone waits, within interruptBound, for the run's harness_exit in
// the trace and then for mur to be the only live process of its session:
// the task's end interrupted the harness and everything in its group ended,
// while mur still serves — not mur's own shutdown.
func (s *sleeping) harnessGone(t *testing.T) {
	t.Helper()
	testmur.WaitEvent(t, s.r.RecordsDir, "harness_exit", interruptBound)
	sid := s.cmd.Process.Pid
	if left := testmur.Left(sid, interruptBound, sid); left != nil {
		t.Fatalf("mur's session still holds, %s after the harness's exit: %s", interruptBound, strings.Join(left, "; "))
	}
}

// onlyMur fails unless mur is the only live process in its session: what
// a harness run started is gone once its task has ended.
func onlyMur(t *testing.T, s *sleeping) {
	t.Helper()
	sid := s.cmd.Process.Pid
	testmur.NoneLeft(t, sid, sid)
}

func text(t *a2a.Task) string {
	if t == nil || t.Status.Message == nil {
		return ""
	}
	var out []string
	for _, p := range t.Status.Message.Parts {
		if p.Text != nil {
			out = append(out, *p.Text)
		}
	}
	return strings.Join(out, "")
}

// TestThreaded is THR-1…5: door tasks in one context resume one harness
// session through harness-session.json; a session the harness lost fails
// E-RUN-036 and leaves the file exactly as it was; another context starts
// anew; the door refuses x-murmur-forget-session. Processes a run started
// are gone when its task ends, the session still running.
func TestThreaded(t *testing.T) {
	t.Parallel()
	c := newCap(t, "claude", "", "lifecycle:\n  task_acceptance: queue\n  after_task: sleep\n  conversation: threaded\n", `{"runs":[
		{"steps":[{"spawn":30},{"answer":"one"}]},
		{"steps":[{"answer":"two"}]},
		{"steps":[{"answer":"unreachable"}]},
		{"steps":[{"answer":"elsewhere"}]}]}`)
	s := c.serve(t)
	task, err := s.send(t, "ctx-thread-1", "first")
	if err != nil || task.Status.State != a2a.TaskStateCompleted {
		t.Fatalf("first task = %+v, %v", task, err)
	}
	onlyMur(t, s)
	spawned(t, c)
	path := filepath.Join(c.home, "conversations", "hx", "ctx-thread-1", "harness-session.json")
	entry, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var th struct {
		Harness, SessionID, ContextID, WrittenAt string
	}
	if err := json.Unmarshal(entry, &struct {
		H *string `json:"harness"`
		S *string `json:"session_id"`
		C *string `json:"context_id"`
		W *string `json:"written_at"`
	}{&th.Harness, &th.SessionID, &th.ContextID, &th.WrittenAt}); err != nil || th.Harness != "claude-code" || th.ContextID != "ctx-thread-1" ||
		!strings.HasPrefix(th.SessionID, "fake-") || th.WrittenAt == "" {
		t.Fatalf("harness-session.json = %s (%v)", entry, err)
	}
	if task, err = s.send(t, "ctx-thread-1", "second"); err != nil || task.Status.State != a2a.TaskStateCompleted {
		t.Fatalf("second task = %+v, %v", task, err)
	}
	entry, _ = os.ReadFile(path)
	if err := os.Remove(c.state("sessions", th.SessionID)); err != nil {
		t.Fatal(err)
	}
	task, err = s.send(t, "ctx-thread-1", "third")
	want := "the harness 'claude-code' could not continue session " + th.SessionID + ", which context 'ctx-thread-1' names: No conversation found with session ID: " +
		th.SessionID + " (that id is recorded in " + path + ")"
	if err != nil || task.Status.State != a2a.TaskStateFailed || text(task) != "error: "+want {
		t.Errorf("third task = %q (%v), want failed: %q", text(task), err, want)
	}
	if after, _ := os.ReadFile(path); string(after) != string(entry) {
		t.Errorf("harness-session.json changed:\n%s\nwas\n%s", after, entry)
	}
	if task, err = s.send(t, "ctx-other", "fourth"); err != nil || task.Status.State != a2a.TaskStateCompleted {
		t.Errorf("another context's task = %+v, %v", task, err)
	}
	_, err = s.send(t, "ctx-thread-1", "forget it", client.WithHeader(a2a.HeaderForgetSession, "true"))
	var ae *a2a.Error
	if !errors.As(err, &ae) || ae.Code != -32602 || ae.Message != "x-murmur-forget-session is not supported by this build" {
		t.Errorf("x-murmur-forget-session = %v, want -32602 (THR-5)", err)
	}
	s.stop(t)
	if !strings.Contains(s.stderr.String(), "error[E-RUN-036]: "+want+"\n") {
		t.Errorf("stderr = %q, want E-RUN-036", s.stderr.String())
	}
	recs := records(t, s.r.RecordsDir)
	starts := of[trace.HarnessStart](t, recs)
	if len(starts) != 4 || starts[0].Mode != "new" || starts[1].Mode != "resume" || *starts[1].HarnessSessionID != th.SessionID ||
		starts[2].Mode != "resume" || starts[3].Mode != "new" {
		t.Errorf("harness_start = %+v", starts)
	}
	for _, f := range of[trace.TaskFailed](t, recs) {
		if f.Cause != "harness_session_lost" || f.Reason != want {
			t.Errorf("task_failed = %+v", f)
		}
	}
}

// TestStateless is THR-3: under the default lifecycle.conversation two door
// tasks in one context each start a new harness session, and no
// harness-session.json is written.
func TestStateless(t *testing.T) {
	t.Parallel()
	c := newCap(t, "claude", "", "lifecycle:\n  task_acceptance: queue\n  after_task: sleep\n", `{"runs":[
		{"steps":[{"answer":"one"}]},
		{"steps":[{"answer":"two"}]}]}`)
	s := c.serve(t)
	for _, want := range []string{"one", "two"} {
		task, err := s.send(t, "ctx-stateless", "go")
		if err != nil || task.Status.State != a2a.TaskStateCompleted || len(task.Artifacts) != 1 || len(task.Artifacts[0].Parts) != 1 ||
			task.Artifacts[0].Parts[0].Text == nil || *task.Artifacts[0].Parts[0].Text != want {
			t.Fatalf("task = %+v, %v; want completed with the response %q", task, err, want)
		}
	}
	s.stop(t)
	if _, err := os.Stat(filepath.Join(c.home, "conversations")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("conversations/ = %v, want none under stateless", err)
	}
	starts := of[trace.HarnessStart](t, records(t, s.r.RecordsDir))
	if len(starts) != 2 || starts[0].Mode != "new" || starts[1].Mode != "new" {
		t.Errorf("harness_start = %+v, want two new sessions", starts)
	}
	for _, call := range c.calls(t) {
		if slices.Contains(call.Argv, "--resume") {
			t.Errorf("a stateless task resumed: argv %q", call.Argv)
		}
	}
}

// TestCancelDuringCall is PROC-16 with the fake: CancelTask while a bridged
// shell command runs ends the task CANCELED; the harness's group and the
// command are gone by then.
func TestCancelDuringCall(t *testing.T) {
	t.Parallel()
	c := newCap(t, "claude", "", "lifecycle:\n  task_acceptance: queue\n  after_task: sleep\n", `{"runs":[
		{"steps":[{"tool":{"name":"sh","args":{"command":"echo started > started.fifo; exec sleep 30"}}},{"answer":"never"}]}]}`)
	man, _ := os.ReadFile(filepath.Join(c.dir, "murmur.yaml"))
	c.write(t, "murmur.yaml", strings.Replace(string(man), "allow: [echo, sleep]", "allow: [echo, sleep, sh]", 1))
	testmur.FIFO(t, filepath.Join(c.dir, "started.fifo"))
	s := c.serve(t)
	res, err := s.cl.SendMessage(context.Background(), a2a.SendMessageRequest{Message: a2a.Message{MessageID: a2a.NewID(a2a.PrefixMessage),
		Role: a2a.RoleUser, Parts: []a2a.Part{a2a.TextPart("sleep")}}, Configuration: &a2a.SendMessageConfiguration{ReturnImmediately: true}})
	if err != nil {
		t.Fatal(err)
	}
	s.started(t, filepath.Join(c.dir, "started.fifo"), res.Task.ID)
	if _, err := s.cl.CancelTask(context.Background(), a2a.CancelTaskRequest{ID: res.Task.ID}); err != nil {
		t.Fatal(err)
	}
	// The stream ends at the task's terminal status (METH-ST); an ended
	// task answers GetTask.
	for range s.cl.SubscribeToTask(context.Background(), a2a.SubscribeToTaskRequest{ID: res.Task.ID}) {
	}
	sub, err := s.cl.GetTask(context.Background(), a2a.GetTaskRequest{ID: res.Task.ID})
	if err != nil || sub.Status.State != a2a.TaskStateCanceled {
		t.Fatalf("task = %+v, %v; want CANCELED", sub, err)
	}
	// The door shows CANCELED at once; the harness and the command are gone
	// soon after, while mur serves on.
	s.harnessGone(t)
	s.stop(t)
	recs := records(t, s.r.RecordsDir)
	// Ended by SIGTERM itself: SIGKILL would have meant the grace ran out.
	if ex := only[trace.HarnessExit](t, recs); ex.Cause != "interrupted" || ex.Signal == nil || *ex.Signal != "SIGTERM" {
		t.Errorf("harness_exit = %+v", ex)
	}
	if tc := only[trace.TaskCanceled](t, recs); tc.Phase != "turn" {
		t.Errorf("task_canceled = %+v, want phase turn: the bridged call's (LOOP-16)", tc)
	}
}

// started waits until the bridged command writes the fifo at path, or
// fails the test if task id ends first (a harness that never ran the
// command would otherwise leave the read blocked for good).
func (s *sleeping) started(t *testing.T, path string, id a2a.TaskID) {
	t.Helper()
	read := make(chan string, 1) // the reader's one result
	go func() {
		b, _ := os.ReadFile(path)
		read <- string(b)
	}()
	ended := make(chan struct{}) // closed when the task's stream ends
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		defer close(ended)
		for range s.cl.SubscribeToTask(ctx, a2a.SubscribeToTaskRequest{ID: id}) {
		}
	}()
	defer func() { cancel(); <-ended }()
	select {
	case got := <-read:
		if got != "started\n" {
			t.Fatalf("fifo = %q", got)
		}
	case <-ended:
		if w, err := os.OpenFile(path, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			w.Close() // the reader sees EOF
		}
		<-read
		task, _ := s.cl.GetTask(context.Background(), a2a.GetTaskRequest{ID: id})
		t.Fatalf("the task ended before its command ran: %+v; stderr %s", task, s.stderr.String())
	}
}
