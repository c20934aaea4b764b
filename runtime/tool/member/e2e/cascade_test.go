package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/murmur-go/mur/a2a"
	"github.com/murmur-go/mur/a2a/client"
	"github.com/murmur-go/mur/runtime/trace"
)

// The chain of TestCascade: lead (the entry, serving tasks at its door) →
// mid → leaf, where leaf asks its operator and so holds its task live until
// something cancels it.
var (
	cascadeLead = capsule{name: "lead", extra: "lifecycle:\n  task_acceptance: queue\n  after_task: sleep\n", script: `script_version: 1
rules:
  - match: {always: true}
    turns:
      - tool_calls: [{name: call-member, input: {member: mid, task: "{{task}}"}}]
      - text: "waiting for mid"
      - text: "lead: {{member_answer}}"
`}
	cascadeMid = capsule{name: "mid", extra: peerExtra, script: `script_version: 1
rules:
  - match: {always: true}
    turns:
      - tool_calls: [{name: call-member, input: {member: leaf, task: "{{task}}"}}]
      - text: "waiting for leaf"
      - text: "mid: {{member_answer}}"
`}
	cascadeLeaf = capsule{name: "leaf", extra: askingWorker.extra, script: askingWorker.script}
)

// chain is a running lead → mid → leaf formation with one task in it, held
// at leaf's question.
type chain struct {
	l                 *launch
	lead, mid, leaf   *client.Client
	leadTask, midTask a2a.TaskID
	leafTask          a2a.TaskID
	midDir, leafDir   string
}

// startChain launches the chain (roster extra appended, e.g. cancel:
// cascade), hands lead a task at its door and returns once leaf asks.
func startChain(t *testing.T, rosterExtra string) *chain {
	t.Helper()
	p := newProject(t)
	p.install(t, cascadeLead, cascadeMid, cascadeLeaf)
	p.roster(t, []string{"lead", "mid", "leaf"}, "lead:mid", "mid:leaf")
	if rosterExtra != "" {
		f, err := os.OpenFile(filepath.Join(p.dir, "roster.yaml"), os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString(rosterExtra)
		f.Close()
	}
	c := &chain{l: p.launch(t)}
	c.lead = operator(t, p, c.l.entry.SessionID, c.l.entry.URL)
	_, mses, murl, mdir := c.l.peer(t, "mid")
	_, lses, lurl, ldir := c.l.peer(t, "leaf")
	c.mid, c.leaf, c.midDir, c.leafDir = operator(t, p, mses, murl), operator(t, p, lses, lurl), mdir, ldir
	c.leadTask = send(t, c.lead, "release the build").ID
	c.leafTask = parkedTask(t, c.leaf)
	list, err := c.mid.ListTasks(t.Context(), a2a.ListTasksRequest{})
	if err != nil || len(list.Tasks) != 1 {
		t.Fatalf("mid's tasks = %+v, %v", list, err)
	}
	c.midTask = list.Tasks[0].ID
	return c
}

// stop ends the formation by SIGTERM and proves every process gone.
func (c *chain) stop(t *testing.T) {
	t.Helper()
	if err := c.l.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	c.l.wait(t)
}

// state reads a task's state and status text at its member's door.
func state(t *testing.T, door *client.Client, id a2a.TaskID) (a2a.TaskState, string) {
	t.Helper()
	tk, err := door.GetTask(t.Context(), a2a.GetTaskRequest{ID: id})
	if err != nil {
		t.Fatalf("GetTask(%s): %v", id, err)
	}
	text := ""
	if tk.Status.Message != nil {
		text = a2a.Text(tk.Status.Message.Parts)
	}
	return tk.Status.State, text
}

// pollPeriod is call-member's GetTask period (CALL-10).
const pollPeriod = 500 * time.Millisecond

// TestCascade is cancel: cascade through a real formation: the
// entry's task is canceled at its door, and mid's and leaf's tasks read
// CANCELED — canceled by CancelTask, while the formation still runs — by
// the second of two GetTask polls one polling period apart; each caller's
// member_call says cascade_canceled.
func TestCascade(t *testing.T) {
	t.Parallel()
	c := startChain(t, "cancel: cascade\n")
	if _, err := c.lead.CancelTask(t.Context(), a2a.CancelTaskRequest{ID: c.leadTask}); err != nil {
		t.Fatalf("CancelTask(lead): %v", err)
	}
	tick := time.NewTicker(pollPeriod)
	defer tick.Stop()
	var ms, ls a2a.TaskState
	var mtext, ltext string
	for poll := 1; poll <= 2; poll++ {
		<-tick.C
		ms, mtext = state(t, c.mid, c.midTask)
		ls, ltext = state(t, c.leaf, c.leafTask)
		if ms == a2a.TaskStateCanceled && ls == a2a.TaskStateCanceled {
			break
		}
	}
	if ms != a2a.TaskStateCanceled || mtext != "canceled: CancelTask" || ls != a2a.TaskStateCanceled || ltext != "canceled: CancelTask" {
		t.Errorf("after two polling periods mid's task is %s %q and leaf's %s %q, want both CANCELED by CancelTask", ms, mtext, ls, ltext)
	}
	c.stop(t)
	lead := of[trace.MemberCall](t, records(t, c.l.entry.RecordsDir))
	if len(lead) != 1 || !lead[0].CascadeCanceled || lead[0].Status != "abandoned" || lead[0].MemberTaskID != string(c.midTask) ||
		lead[0].Output != "the calling task ended before mid's answer arrived; mid's task was canceled (cancel: cascade)" {
		t.Errorf("lead's member_call = %+v, want mid's task cascade_canceled", lead)
	}
	mid := records(t, c.midDir)
	if mc := of[trace.MemberCall](t, mid); len(mc) != 1 || !mc[0].CascadeCanceled || mc[0].MemberTaskID != string(c.leafTask) {
		t.Errorf("mid's member_call = %+v, want leaf's task cascade_canceled: mid cascades further", mc)
	}
	if tc := of[trace.TaskCanceled](t, mid); len(tc) != 1 || tc[0].Phase != "member_call" {
		t.Errorf("mid's task_canceled = %+v, want phase member_call", tc)
	}
	if tc := of[trace.TaskCanceled](t, records(t, c.leafDir)); len(tc) != 1 || tc[0].Phase != "input" {
		t.Errorf("leaf's task_canceled = %+v, want phase input", tc)
	}
}

// TestCascadeOff: without cancel (off, the default) the same cancel leaves
// mid's and leaf's tasks running once the lead's task has ended and
// accounted for its call (formations.md §16).
func TestCascadeOff(t *testing.T) {
	t.Parallel()
	c := startChain(t, "")
	if _, err := c.lead.CancelTask(t.Context(), a2a.CancelTaskRequest{ID: c.leadTask}); err != nil {
		t.Fatalf("CancelTask(lead): %v", err)
	}
	// The call is accounted for (member_call) before the lead's task_end:
	// once task_end is in the lead's trace, any cancel it would send is sent.
	tick := time.NewTicker(pollPeriod)
	defer tick.Stop()
	for i := 0; !hasTaskEnd(t, c.l.entry.RecordsDir); i++ {
		if i == 40 {
			t.Fatal("the lead's canceled task wrote no task_end within 40 polling periods")
		}
		<-tick.C
	}
	if ms, _ := state(t, c.mid, c.midTask); ms != a2a.TaskStateWorking {
		t.Errorf("mid's task is %s after the lead's ended, want WORKING: cancel off leaves it running", ms)
	}
	if ls, _ := state(t, c.leaf, c.leafTask); ls != a2a.TaskStateInputRequired {
		t.Errorf("leaf's task is %s, want INPUT_REQUIRED", ls)
	}
	c.stop(t)
	if mc := of[trace.MemberCall](t, records(t, c.l.entry.RecordsDir)); len(mc) != 1 || mc[0].CascadeCanceled ||
		mc[0].Output != "the calling task ended before mid's answer arrived; mid was not cancelled and may still be working" {
		t.Errorf("lead's member_call = %+v, want the CALL-10 abandoned text and no cascade", mc)
	}
}

// hasTaskEnd reports whether the records directory's trace holds task_end.
func hasTaskEnd(t *testing.T, dir string) bool {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "trace.jsonl"))
	return err == nil && strings.Contains(string(b), `"event_type":"task_end"`)
}
