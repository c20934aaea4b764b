package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/murmur-go/mur/a2a"
	"github.com/murmur-go/mur/a2a/client"
	"github.com/murmur-go/mur/internal/testmur"
	"github.com/murmur-go/mur/runtime/trace"
)

// askingWorker is a callee that asks its operator (input.md INP-11) and
// answers with the reply.
var askingWorker = capsule{name: "worker", extra: peerExtra + `artifacts:
  - name: murmur-tool-request-input
    version: "1.0.0"
`, script: `script_version: 1
rules:
  - match: {always: true}
    turns:
      - tool_calls: [{name: murmur-tool-request-input, input: {prompt: "may I {{task}}?"}}]
      - text: "worker: {{tool_result}}"
`}

// parkedTask follows a door's stream/watch until a task's status is
// input-required and returns its id.
func parkedTask(t *testing.T, door *client.Client) a2a.TaskID {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	for f, err := range door.Watch(ctx, 0) {
		if err != nil {
			t.Fatalf("stream/watch: %v", err)
		}
		if f.Event != a2a.FrameStatus {
			continue
		}
		var st struct {
			ID     a2a.TaskID `json:"id"`
			Status struct {
				State string `json:"state"`
			} `json:"status"`
		}
		if err := json.Unmarshal(f.Data, &st); err != nil {
			t.Fatal(err)
		}
		if st.Status.State == "input-required" {
			return st.ID
		}
	}
	t.Fatal("stream/watch ended before a task asked")
	return ""
}

// TestMemberAsks_INP11: a member's question keeps its caller's call
// outstanding — the caller's task shows RND-1's waiting text, the runtime
// never replies — and the operator's reply at the member's own door lets
// the member answer, which the caller then delivers.
func TestMemberAsks_INP11(t *testing.T) {
	t.Parallel()
	p := newProject(t)
	p.install(t, leadCalls("worker"), askingWorker)
	p.roster(t, []string{"lead", "worker"}, "lead:worker")
	l := p.start(t, "deploy")
	_, wses, wurl, wdir := l.peer(t, "worker")
	wdoor := operator(t, p, wses, wurl)
	id := parkedTask(t, wdoor)
	got, err := wdoor.GetTask(t.Context(), a2a.GetTaskRequest{ID: id})
	if err != nil || got.Status.State != a2a.TaskStateInputRequired || got.Artifact(a2a.ArtifactPrompt) == nil ||
		a2a.Text(got.Artifact(a2a.ArtifactPrompt).Parts) != "may I deploy?" {
		t.Fatalf("the worker's task = %+v, %v", got, err)
	}
	lead := operator(t, p, l.entry.SessionID, l.entry.URL)
	list, err := lead.ListTasks(t.Context(), a2a.ListTasksRequest{})
	if err != nil || len(list.Tasks) != 1 {
		t.Fatalf("the lead's tasks = %+v, %v", list, err)
	}
	// The lead's status shows the wait once its turn has ended (RND-1); its
	// stream stays open, since the task is WORKING, not interrupted.
	waiting := ""
	for ev, err := range lead.SubscribeToTask(t.Context(), a2a.SubscribeToTaskRequest{ID: list.Tasks[0].ID}) {
		if err != nil {
			t.Fatalf("SubscribeToTask(lead): %v", err)
		}
		st := ev.StatusUpdate
		if ev.Task != nil {
			st = &a2a.TaskStatusUpdateEvent{Status: ev.Task.Status}
		}
		if st != nil && st.Status.Message != nil {
			waiting = a2a.Text(st.Status.Message.Parts)
		}
		if st != nil && st.Status.State != a2a.TaskStateWorking {
			t.Fatalf("the lead's task left WORKING: %s", st.Status.State)
		}
		if waiting != "" {
			break
		}
	}
	want(t, "the lead's status", waiting, "waiting on call-member: 1 call(s) outstanding")
	resp, err := wdoor.SendMessage(t.Context(), a2a.SendMessageRequest{
		Message:       a2a.Message{MessageID: "m-reply", Role: a2a.RoleUser, TaskID: id, Parts: []a2a.Part{a2a.TextPart("yes, go ahead")}},
		Configuration: &a2a.SendMessageConfiguration{ReturnImmediately: true},
	})
	if err != nil || resp.Task == nil || resp.Task.Status.State != a2a.TaskStateWorking {
		t.Fatalf("the operator's reply = %+v, %v; want WORKING", resp, err)
	}
	if code := l.wait(t); code != 0 {
		t.Fatalf("mur run --roster exited %d; stderr:\n%s", code, l.stderr.String())
	}
	want(t, "lead result", result(t, l.entry.RecordsDir), "lead: worker: yes, go ahead")
	wrecs := records(t, wdir)
	rp := of[trace.InputReply](t, wrecs)
	if len(rp) != 1 || rp[0].MessageID != "m-reply" || rp[0].CallerMember != "" {
		t.Errorf("the worker's input_reply = %+v, want the operator's, no member (the runtime never replies, INP-11)", rp)
	}
	if mc := of[trace.MemberCall](t, records(t, l.entry.RecordsDir)); len(mc) != 1 || mc[0].Status != "completed" || mc[0].MemberTaskID != string(id) {
		t.Errorf("the lead's member_call = %+v", mc)
	}
}

// TestMemberAsksCallerTimesOut_INP11: the caller's delegation deadline ends
// its call timed_out while the member still waits for its operator; the
// member's task is left INPUT_REQUIRED until the formation ends it. The
// lead, its call timed out, holds the formation up on a fifo until the test
// has seen the worker parked: the 2 s deadline is never a window the
// worker's park must fit in.
func TestMemberAsksCallerTimesOut_INP11(t *testing.T) {
	t.Parallel()
	p := newProject(t)
	hold := p.fifo(t, "hold")
	lead := capsule{name: "lead", shell: true, extra: "lifecycle:\n  delegation_deadline_secs: 2\n", script: fmt.Sprintf(`script_version: 1
rules:
  - match: {always: true}
    turns:
      - tool_calls: [{name: call-member, input: {member: worker, task: "{{task}}"}}]
      - text: "waiting for worker"
      - tool_calls: [{name: bash, input: {command: "cat %s"}}]
      - text: "lead: given up"
`, hold)}
	p.install(t, lead, askingWorker)
	p.roster(t, []string{"lead", "worker"}, "lead:worker")
	l := p.start(t, "deploy")
	_, wses, wurl, wdir := l.peer(t, "worker")
	wdoor := operator(t, p, wses, wurl)
	id := parkedTask(t, wdoor)
	// The lead gives up after 2 s and then waits on hold; until the
	// formation ends the worker's task still waits. Its question is
	// answered by nobody.
	testmur.WriteFIFO(t, hold, []byte("go\n"), l.cmd.Process)
	code := l.wait(t)
	if code != 0 {
		t.Fatalf("mur run --roster exited %d; stderr:\n%s", code, l.stderr.String())
	}
	mc := of[trace.MemberCall](t, records(t, l.entry.RecordsDir))
	if len(mc) != 1 || mc[0].Status != "timed_out" || mc[0].MemberTaskID != string(id) ||
		!strings.HasPrefix(mc[0].Output, "worker did not answer within 2s. Its task was not cancelled") {
		t.Errorf("the lead's member_call = %+v, want timed_out (CALL-10)", mc)
	}
	wrecs := records(t, wdir)
	if n := len(of[trace.InputReply](t, wrecs)); n != 0 {
		t.Errorf("the worker got %d replies; the runtime never replies for a member (INP-11)", n)
	}
	tc := of[trace.TaskCanceled](t, wrecs)
	if len(tc) != 1 || tc[0].Phase != "input" {
		t.Errorf("the worker's task_canceled = %+v, want it still waiting (phase input) when the formation ended", tc)
	}
	if te := of[trace.TaskEnd](t, wrecs); len(te) != 1 || te[0].Turns != 1 {
		t.Errorf("the worker's task_end = %+v, want one turn: no inference while it waited", te)
	}
}
