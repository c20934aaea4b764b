package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/murmur-go/mur/a2a"
	"github.com/murmur-go/mur/a2a/client"
	"github.com/murmur-go/mur/internal/testmur"
	"github.com/murmur-go/mur/runtime/tool/shell"
	"github.com/murmur-go/mur/runtime/trace"
)

// operator returns a client of a running member's door with its operator
// token, read from its running record (capsule.md SES-6).
func operator(t testing.TB, p *project, session, url string) *client.Client {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(p.home, "running", session+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var rec struct {
		Tokens map[string]string `json:"tokens"`
	}
	if err := json.Unmarshal(b, &rec); err != nil {
		t.Fatal(err)
	}
	c, err := client.New(client.Config{BaseURL: url, Token: rec.Tokens["operator"]})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// send hands a member a task of the test's own (origin event).
func send(t testing.TB, c *client.Client, text string) a2a.Task {
	t.Helper()
	resp, err := c.SendMessage(t.Context(), a2a.SendMessageRequest{
		Message:       a2a.Message{MessageID: a2a.NewID(a2a.PrefixMessage), Role: a2a.RoleUser, Parts: []a2a.Part{a2a.TextPart(text)}},
		Configuration: &a2a.SendMessageConfiguration{ReturnImmediately: true},
	})
	if err != nil || resp.Task == nil {
		t.Fatalf("SendMessage: %v", err)
	}
	return *resp.Task
}

// readAll reads a named pipe to EOF: it returns once a member's command has
// written to it and closed it, and fails the test once the launch has
// ended with nothing written.
func (l *launch) readAll(t testing.TB, path string) {
	t.Helper()
	testmur.ReadFIFO(t, path, l.cmd.Process)
}

// writeTo opens a named pipe for writing and closes it: a member's command
// blocked reading it goes on. It fails the test once the launch has ended
// with the pipe unread.
func (l *launch) writeTo(t testing.TB, path string) {
	t.Helper()
	testmur.WriteFIFO(t, path, nil, l.cmd.Process)
}

// TestCallBusyThenStarted is CALL-7/8/9 through a real formation: the worker
// is full (one task running, one queued), so the lead's call is turned away
// busy; once the lead frees the worker, a re-offer is taken and the call
// goes on as started, with one member_call_busy per refusal and
// member_call_start.
func TestCallBusyThenStarted(t *testing.T) {
	t.Parallel()
	p := newProject(t)
	goFIFO, started, release := p.fifo(t, "go"), p.fifo(t, "started"), p.fifo(t, "release")
	lead := capsule{name: "lead", shell: true, script: fmt.Sprintf(`script_version: 1
rules:
  - match: {always: true}
    turns:
      - tool_calls: [{name: bash, input: {command: "cat %s"}}]
      - tool_calls: [{name: call-member, input: {member: worker, task: "{{task}}"}}]
      - tool_calls: [{name: bash, input: {command: "echo free > %s"}}]
      - text: "waiting for worker"
      - text: "lead: {{member_answer}}"
`, goFIFO, release)}
	w := capsule{name: "worker", shell: true, extra: peerExtra, script: fmt.Sprintf(`script_version: 1
rules:
  - match: {contains: "BLOCK"}
    turns:
      - tool_calls: [{name: bash, input: {command: "echo up > %s; exec cat %s"}}]
      - text: "unblocked"
  - match: {contains: "QUEUED"}
    turns:
      - text: "queued done"
fallback:
  turns:
    - text: "worker did: {{task}}"
`, started, release)}
	p.install(t, lead, w)
	p.roster(t, []string{"lead", "worker"}, "lead:worker")
	l := p.start(t, "build it")
	_, ses, url, wdir := l.peer(t, "worker")
	door := operator(t, p, ses, url)
	send(t, door, "BLOCK")
	l.readAll(t, started) // the BLOCK task runs
	if q := send(t, door, "QUEUED"); q.Status.State != a2a.TaskStateSubmitted {
		t.Fatalf("the QUEUED task is %s, want it queued", q.Status.State)
	}
	statuses := workingTexts(t, operator(t, p, l.entry.SessionID, l.entry.URL))
	l.writeTo(t, goFIFO) // the worker is full: the lead calls it now
	if code := l.wait(t); code != 0 {
		t.Fatalf("mur run --roster exited %d; stderr:\n%s", code, l.stderr.String())
	}
	recs := records(t, l.entry.RecordsDir)
	want(t, "call-member result", normalise(toolOutputs(t, recs, "call-member")[0]), `<untrusted-content source=tool:call-member>
{"call_id":"<mcl_1>","member":"worker","output":"worker is busy with other work and did not take the task","status":"busy"}
</untrusted-content>
[call-member] worker is busy with other work and has not taken call <mcl_1> yet. The runtime keeps offering it the task for up to 600s and adds worker's answer, or word that it stayed busy, to this conversation after you end your turn. Unless you still have work to hand to a different member, end your turn now by replying without calling a tool. Calling worker again before then is refused.`)
	busy := of[trace.MemberCallBusy](t, recs)
	if len(busy) == 0 || busy[0].Offer != 1 || busy[0].Message != "task rejected: capsule is busy" {
		t.Fatalf("member_call_busy = %+v, want the first offer's refusal", busy)
	}
	for i, b := range busy {
		if b.Offer != i+1 {
			t.Errorf("member_call_busy %d = %+v, want offer %d", i, b, i+1)
		}
	}
	st, mc := of[trace.MemberCallStart](t, recs), of[trace.MemberCall](t, recs)
	if len(st) != 1 || len(mc) != 1 || mc[0].Status != "completed" || mc[0].MemberTaskID != st[0].MemberTaskID {
		t.Errorf("member_call_start = %+v, member_call = %+v", st, mc)
	}
	if n := len(of[trace.TaskRejected](t, records(t, wdir))); n != len(busy) {
		t.Errorf("the worker rejected %d tasks, the lead recorded %d busy refusals", n, len(busy))
	}
	want(t, "continuation", normalise(continuation(t, l.entry.RecordsDir, 1)), `[call-member] call <mcl_1> to worker ended completed:
<untrusted-content source=member:worker>
worker did: build it
</untrusted-content>

`+lastComplete)
	want(t, "the lead task's WORKING status texts (RND-1, RND-2)", strings.Join(<-statuses, "\n"),
		"waiting on call-member: 1 call(s) outstanding\ncontinuing with 1 member answer(s)")
}

// workingTexts subscribes to the door's one task (SubscribeToTask) and
// returns a channel yielding, once the stream ends, every text of a
// TASK_STATE_WORKING status it carried. It returns once subscribed.
func workingTexts(t testing.TB, door *client.Client) <-chan []string {
	t.Helper()
	list, err := door.ListTasks(t.Context(), a2a.ListTasksRequest{})
	if err != nil || len(list.Tasks) != 1 {
		t.Fatalf("ListTasks = %v, %v; want the launch task", list, err)
	}
	out := make(chan []string, 1)   // the one result
	first := make(chan struct{}, 1) // the subscription's first event
	go func() {
		var texts []string
		for ev, err := range door.SubscribeToTask(context.Background(), a2a.SubscribeToTaskRequest{ID: list.Tasks[0].ID}) {
			select {
			case first <- struct{}{}:
			default:
			}
			if err != nil {
				break
			}
			if u := ev.StatusUpdate; u != nil && u.Status.State == a2a.TaskStateWorking && u.Status.Message != nil {
				texts = append(texts, a2a.Text(u.Status.Message.Parts))
			}
		}
		out <- texts
	}()
	<-first
	return out
}

// TestCallUnreachable is CALL-10: a member whose process is gone stops
// answering; two unanswered reads in a row end the call unreachable.
func TestCallUnreachable(t *testing.T) {
	t.Parallel()
	p := newProject(t)
	started, never := p.fifo(t, "started"), p.fifo(t, "never")
	w := capsule{name: "worker", shell: true, extra: peerExtra, script: fmt.Sprintf(`script_version: 1
rules:
  - match: {always: true}
    turns:
      - tool_calls: [{name: bash, input: {command: "echo up > %s; exec cat %s"}}]
      - text: "never"
`, started, never)}
	p.install(t, leadCalls("worker"), w)
	p.roster(t, []string{"lead", "worker"}, "lead:worker")
	l := p.start(t, "build it")
	pid, _, _, _ := l.peer(t, "worker")
	l.readAll(t, started) // the worker holds the lead's task
	if err := syscall.Kill(-pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	// The worker's shell command runs in a process group of its own, but as
	// its direct child (exec: no shell in between) it gets SIGKILL when the
	// worker dies (proc.SysProcAttr's parent-death signal); l.wait proves
	// it gone. Opening never for writing instead would block for good when
	// the shell died before starting cat.
	if code := l.wait(t); code != 0 {
		t.Fatalf("mur run --roster exited %d; stderr:\n%s", code, l.stderr.String())
	}
	got := normalise(continuation(t, l.entry.RecordsDir, 1))
	want(t, "continuation", got, `[call-member] call <mcl_1> to worker ended unreachable, with no answer from worker:
<untrusted-content source=member:worker>
worker's door stopped answering: connection refused
</untrusted-content>

[call-member] No answer came from: worker (call <mcl_1>, unreachable)`+noAnswerTail+`

`+lastMissing)
	if strings.Contains(got, "127.0.0.1") {
		t.Error("the continuation names the door's address (CALL-3)")
	}
}

// TestCallRejectedClosing is CALL-7's rejected row: a member whose session is
// closing answers "task rejected: the session is closing"; the call ends
// rejected in its tool call, and nothing is offered again. The worker ends
// after its first task (after_task: exit), and a background command that
// outlives SIGTERM keeps its door up, closing (capsule.md SES-8). That
// command says so on a fifo once its SIGTERM came, which is once the
// worker's task table is closing, and then holds the session closing until
// the lead, its second call answered, lets it go on another: the lead calls
// again on that event, never inside a window (the test build's grace,
// shell.CloseGraceEnv, is a bound well past it).
func TestCallRejectedClosing(t *testing.T) {
	t.Parallel()
	p := newProject(t)
	p.env = []string{shell.CloseGraceEnv + "=2m"}
	closing, released := p.fifo(t, "worker-closing"), p.fifo(t, "worker-released")
	lead := capsule{name: "lead", shell: true, script: fmt.Sprintf(`script_version: 1
rules:
  - match: {always: true}
    turns:
      - tool_calls: [{name: call-member, input: {member: worker, task: "prep"}}]
      - text: "waiting for worker"
      - tool_calls: [{name: bash, input: {command: "cat %[1]s"}}]
      - tool_calls: [{name: call-member, input: {member: worker, task: "again"}}]
      - tool_calls: [{name: bash, input: {command: "echo go > %[2]s"}}]
      - text: "lead: done"
`, closing, released)}
	w := capsule{name: "worker", shell: true, extra: `lifecycle:
  task_acceptance: queue
  after_task: exit
  shell_grace_secs: 1
exports:
  peer_tasks:
    accept: true
`, script: fmt.Sprintf(`script_version: 1
rules:
  - match: {always: true}
    turns:
      - tool_calls: [{name: bash, input: {command: "trap 'echo closing > %[1]s; cat %[2]s; exit 0' TERM; while :; do sleep 0.05; done"}}]
      - text: "prepped"
`, closing, released)}
	p.install(t, lead, w)
	p.roster(t, []string{"lead", "worker"}, "lead:worker")
	l := p.start(t, "build it")
	if code := l.wait(t); code != 0 {
		t.Fatalf("mur run --roster exited %d; stderr:\n%s", code, l.stderr.String())
	}
	recs := records(t, l.entry.RecordsDir)
	outs := toolOutputs(t, recs, "call-member")
	if len(outs) != 2 {
		t.Fatalf("call-member outputs = %q", outs)
	}
	want(t, "second call-member result", normalise(outs[1]), `<untrusted-content source=tool:call-member>
{"call_id":"<mcl_1>","member":"worker","output":"worker did not take the task: the session is closing","status":"rejected"}
</untrusted-content>
[call-member] Call <mcl_1> to worker ended rejected, with no answer from worker. Do not present an answer of your own as worker's.`)
	mc := of[trace.MemberCall](t, recs)
	if len(mc) != 2 || mc[1].Status != "rejected" || !mc[1].Delivered || mc[1].MemberTaskID != "" {
		t.Errorf("member_calls = %+v", mc)
	}
	if tc := of[trace.TaskContinued](t, recs); len(tc) != 1 {
		t.Errorf("task_continued = %+v, want only the first call's", tc)
	}
}
