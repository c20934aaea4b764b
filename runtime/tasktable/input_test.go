package tasktable

import (
	"errors"
	"testing"

	"github.com/murmur-go/mur/a2a"
)

// reply sends a message naming id, as a door would.
func reply(r *Registry, c Caller, id a2a.TaskID, ctx a2a.ContextID, text string) (a2a.Task, error) {
	m := msg(text)
	m.TaskID, m.ContextID = id, ctx
	tk, _, err := r.Send(SendRequest{Caller: c, Prov: door, Message: m})
	return tk, err
}

// TestAskInputTakesOneReply is INP-4..6 on the table: a question parks the
// task INPUT_REQUIRED with its prompt and no status message; the reply skips
// the capacity check (TASK-7), answers WORKING and reaches Replies with its
// sender; a second reply is -32004; another contextId is -32602; a member
// token sees only its own tasks (AUTH-6).
func TestAskInputTakesOneReply(t *testing.T) {
	r := newReg(t, ModeSingle, 0, nil)
	tk := send(t, r, Caller{}, "one")
	run := next(t, r)
	sub, err := r.Subscribe(Caller{}, tk.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !run.AskInput("which branch?") {
		t.Fatal("AskInput on a WORKING task = false")
	}
	var kinds []string
	for ev := range sub.Events() {
		switch {
		case ev.Task != nil:
			kinds = append(kinds, "task")
		case ev.ArtifactUpdate != nil:
			kinds = append(kinds, "artifact:"+ev.ArtifactUpdate.Artifact.ArtifactID)
		case ev.StatusUpdate != nil:
			kinds = append(kinds, "status:"+string(ev.StatusUpdate.Status.State))
			if m := ev.StatusUpdate.Status.Message; m == nil || m.Role != a2a.RoleAgent || a2a.Text(m.Parts) != "which branch?" {
				t.Errorf("INPUT_REQUIRED status message = %+v, want the agent's question (INP-4)", m)
			}
		}
	}
	if want := []string{"task", "artifact:prompt", "status:TASK_STATE_INPUT_REQUIRED"}; !equal(kinds, want) {
		t.Errorf("stream = %v, want %v (SSE-3)", kinds, want)
	}
	got, _ := r.Get(Caller{}, tk.ID, nil)
	if got.Status.State != a2a.TaskStateInputRequired || len(got.Artifacts) != 1 || a2a.Text(got.Artifacts[0].Parts) != "which branch?" {
		t.Fatalf("GetTask = %+v, want INPUT_REQUIRED with the prompt (INP-13)", got)
	}
	if _, err := reply(r, Caller{}, tk.ID, "ctx_other", "main"); !errors.Is(err, a2a.ErrInvalidParams) {
		t.Errorf("reply in another context error = %v, want -32602", err)
	}
	if _, err := reply(r, Caller{Member: "mallory", Credential: "member:mallory"}, tk.ID, "", "main"); !errors.Is(err, a2a.ErrTaskNotFound) {
		t.Errorf("a member token's reply to the operator's task error = %v, want -32001 (AUTH-6)", err)
	}
	ans, err := reply(r, Caller{Credential: "operator"}, tk.ID, "", "main")
	if err != nil || ans.Status.State != a2a.TaskStateWorking {
		t.Fatalf("reply = %s, %v; want WORKING (METH-SM-3)", ans.Status.State, err)
	}
	select {
	case rp := <-run.Replies():
		if a2a.Text(rp.Message.Parts) != "main" || rp.Caller.Credential != "operator" || rp.Prov.Origin != door.Origin || rp.Message.ContextID != tk.ContextID {
			t.Errorf("reply = %+v", rp)
		}
	default:
		t.Fatal("no reply on Replies")
	}
	if _, err := reply(r, Caller{}, tk.ID, "", "again"); !errors.Is(err, a2a.ErrUnsupportedOperation) {
		t.Errorf("second reply error = %v, want -32004 (INP-6)", err)
	}
	if !run.AskInput("and the tag?") {
		t.Fatal("a second question = false")
	}
	got, _ = r.Get(Caller{}, tk.ID, intp(5))
	if len(got.Artifacts) != 1 || a2a.Text(got.Artifacts[0].Parts) != "and the tag?" {
		t.Errorf("after a second question: artifacts %+v; want the prompt replaced", got.Artifacts)
	}
	run.Finish(Outcome{State: a2a.TaskStateCompleted, Response: "done"})
	// The history holds both sides (TASK-4): each question and the answer
	// are agent messages, each with its own messageId.
	got, _ = r.Get(Caller{}, tk.ID, intp(10))
	var turns []string
	ids := map[string]bool{}
	for _, m := range got.History {
		turns = append(turns, string(m.Role)+":"+a2a.Text(m.Parts))
		ids[m.MessageID] = true
	}
	want := []string{"ROLE_USER:one", "ROLE_AGENT:which branch?", "ROLE_USER:main", "ROLE_AGENT:and the tag?", "ROLE_AGENT:done"}
	if !equal(turns, want) || len(ids) != len(want) {
		t.Errorf("history = %v (%d distinct ids), want %v", turns, len(ids), want)
	}
	if got, _ = r.Get(Caller{}, tk.ID, intp(2)); len(got.History) != 2 || a2a.Text(got.History[1].Parts) != "done" {
		t.Errorf("historyLength 2 = %+v, want the last two messages", got.History)
	}
	if _, err := reply(r, Caller{}, tk.ID, "", "late"); !errors.Is(err, a2a.ErrUnsupportedOperation) {
		t.Errorf("reply to an ended task error = %v, want -32004", err)
	}
}

// TestWithdrawRacesReply is INP-7's timeout against a reply: once withdrawn,
// a reply is -32004; a reply taken first is handed back by Withdraw.
func TestWithdrawRacesReply(t *testing.T) {
	r := newReg(t, ModeQueue, 4, nil)
	tk := send(t, r, Caller{}, "one")
	run := next(t, r)
	run.AskInput("q")
	if _, ok := run.Withdraw(); ok {
		t.Fatal("Withdraw with no reply returned one")
	}
	if _, err := reply(r, Caller{}, tk.ID, "", "late"); !errors.Is(err, a2a.ErrUnsupportedOperation) {
		t.Errorf("reply after Withdraw error = %v, want -32004", err)
	}
	run.Finish(Outcome{State: a2a.TaskStateFailed, Message: "input-timeout"})

	tk2 := send(t, r, Caller{}, "two")
	run2 := next(t, r)
	run2.AskInput("q")
	if _, err := reply(r, Caller{}, tk2.ID, "", "first"); err != nil {
		t.Fatal(err)
	}
	rp, ok := run2.Withdraw()
	if !ok || a2a.Text(rp.Message.Parts) != "first" {
		t.Errorf("Withdraw after a reply = %+v, %v; want the reply", rp, ok)
	}
}

// TestCancelWhileAsking is INP-8 on the table: INPUT_REQUIRED → CANCELED at
// once; a question after a cancel is not asked.
func TestCancelWhileAsking(t *testing.T) {
	r := newReg(t, ModeSingle, 0, nil)
	tk := send(t, r, Caller{}, "one")
	run := next(t, r)
	run.AskInput("q")
	c, err := r.Cancel(Caller{}, tk.ID)
	if err != nil || c.Status.State != a2a.TaskStateCanceled {
		t.Fatalf("Cancel = %s, %v", c.Status.State, err)
	}
	<-run.Canceled()
	if run.AskInput("again") {
		t.Error("AskInput on a canceled task = true")
	}
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func intp(n int) *int { return &n }

// TestSubscribeWhileAsking is METH-ST-2 for a task already waiting for
// input: the stream opens with it INPUT_REQUIRED and stays open through the
// reply until the task's next terminal status.
func TestSubscribeWhileAsking(t *testing.T) {
	r := newReg(t, ModeSingle, 0, nil)
	tk := send(t, r, Caller{}, "one")
	run := next(t, r)
	run.AskInput("q")
	sub, err := r.Subscribe(Caller{}, tk.ID)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := reply(r, Caller{}, tk.ID, "", "a"); err != nil {
		t.Fatal(err)
	}
	run.Finish(Outcome{State: a2a.TaskStateCompleted, Response: "done"})
	var kinds []string
	for ev := range sub.Events() {
		switch {
		case ev.Task != nil:
			kinds = append(kinds, "task:"+string(ev.Task.Status.State))
		case ev.StatusUpdate != nil:
			kinds = append(kinds, "status:"+string(ev.StatusUpdate.Status.State))
		case ev.ArtifactUpdate != nil:
			kinds = append(kinds, "artifact:"+ev.ArtifactUpdate.Artifact.ArtifactID)
		}
	}
	want := []string{"task:TASK_STATE_INPUT_REQUIRED", "status:TASK_STATE_WORKING", "artifact:response", "status:TASK_STATE_COMPLETED"}
	if !equal(kinds, want) {
		t.Errorf("stream = %v, want %v", kinds, want)
	}
}

// TestMemberReplies is AUTH-6 for a reply: a formation caller's member token
// may answer the question of a task its member started, and the reply names
// it (input_reply caller_member, INP-10); the runtime's own client never
// sends one (INP-11).
func TestMemberReplies(t *testing.T) {
	r := newReg(t, ModeSingle, 0, nil)
	lead := Caller{Credential: "member:lead", Member: "lead"}
	tk := send(t, r, lead, "one")
	run := next(t, r)
	run.AskInput("q")
	if _, err := reply(r, lead, tk.ID, "", "from lead"); err != nil {
		t.Fatalf("the starting member's reply: %v", err)
	}
	if rp := <-run.Replies(); rp.Caller.Member != "lead" || a2a.Text(rp.Message.Parts) != "from lead" {
		t.Errorf("reply = %+v", rp)
	}
}
