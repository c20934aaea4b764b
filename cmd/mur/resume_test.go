package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/murmur-go/mur/internal/testmur"
	"github.com/murmur-go/mur/runtime/driver/openai/fake"
	"github.com/murmur-go/mur/runtime/trace"
	"github.com/murmur-go/mur/runtime/trace/tracetest"
)

// rawMessages is a Chat Completions request body's messages, each as sent.
func rawMessages(t *testing.T, body []byte) []json.RawMessage {
	t.Helper()
	var b struct {
		Messages []json.RawMessage `json:"messages"`
	}
	if err := json.Unmarshal(body, &b); err != nil {
		t.Fatalf("request body: %v", err)
	}
	return b.Messages
}

// A capsule killed with SIGKILL mid-task is resumed with --resume: the
// first inference request of the resumed session is the conversation the
// model last saw before the kill, byte for byte, then the resume's task;
// session_start names the session it resumed and the context.
func TestResumeAfterKill(t *testing.T) {
	srv := fake.New(fake.Config{APIKey: "sk-test", Model: "gpt-test"})
	defer srv.Close()
	srv.Enqueue(fake.Calls(fake.ToolCall{Name: "bash", Arguments: `{"command":"echo $$ > ready; exec sleep 60"}`}))
	e := newRunEnv(t, map[string]string{
		"murmur.yaml": "name: resumer\nversion: \"1.0.0\"\ninference:\n  driver:\n    kind: openai\n    model: gpt-test\n    endpoint: " + srv.URL +
			"\n    api_key: ${TEST_OPENAI_KEY}\ncapabilities:\n  shell:\n    allow: [bash]\n",
		".env": "TEST_OPENAI_KEY=sk-test\n",
	})
	testmur.FIFO(t, filepath.Join(e.dir, "ready"))
	p := e.start(t, "--capsule", e.dir, "--task", "first task")
	pgid := readyPgid(t, e, p)
	if err := p.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	p.wait()
	syscall.Kill(-pgid, syscall.SIGKILL) // the tool's group, orphaned by the kill
	if !runGroupGone(pgid) {
		t.Fatalf("group %d left running", pgid)
	}
	before := srv.Requests()
	if len(before) != 1 {
		t.Fatalf("requests before the kill = %d, want 1", len(before))
	}

	srv.Enqueue(fake.Text("carried on"))
	stdout, stderr, code := e.run(t, "--capsule", e.dir, "--resume", "--task", "carry on")
	if code != 0 || !strings.HasSuffix(stdout, "carried on\nstatus:  ok\n") {
		t.Fatalf("resume: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	if f := srv.Failures(); len(f) > 0 {
		t.Errorf("bad requests: %v", f)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("requests = %d, want 2", len(reqs))
	}
	old, got := rawMessages(t, reqs[0].Body), rawMessages(t, reqs[1].Body)
	if len(got) != len(old)+1 {
		t.Fatalf("resumed request has %d messages, want %d + 1", len(got), len(old))
	}
	for i := range old {
		if !bytes.Equal(got[i], old[i]) {
			t.Errorf("message %d differs:\n got %s\nwant %s", i, got[i], old[i])
		}
	}
	if last := string(got[len(got)-1]); last != `{"role":"user","content":"carry on"}` {
		t.Errorf("the resume's message = %s", last)
	}
	if got, want := len(sesRe.FindAllString(stdout, -1)), 1; got < want {
		t.Fatalf("no session id in %q", stdout)
	}
	ids := sesRe.FindAllString(stdout, -1)
	rec := readSessionStart(t, e.home, ids[0])
	if rec.ResumedFrom == nil || !strings.HasPrefix(*rec.ResumedFrom, "ses_") || *rec.ResumedFrom == ids[0] || rec.ContextID == nil || !strings.HasPrefix(*rec.ContextID, "ctx_") {
		t.Errorf("session_start resumed_from %v, context_id %v", rec.ResumedFrom, rec.ContextID)
	}
	// mur trace show names the session it resumed from.
	show := e.command()
	show.Args = []string{murBin, "trace", "show", ids[0]}
	out, _, code := testmur.Exec(t, show)
	if rec.ResumedFrom != nil && (code != 0 || !strings.Contains(out, "\nresumed:    "+*rec.ResumedFrom+"\n")) {
		t.Errorf("trace show = %d %q, want a resumed: line", code, out)
	}
}

type startRec struct {
	ResumedFrom *string `json:"resumed_from"`
	ContextID   *string `json:"context_id"`
}

// readSessionStart reads session ses's session_start, wherever it ran.
func readSessionStart(t *testing.T, home, ses string) startRec {
	t.Helper()
	var found string
	_ = filepath.WalkDir(filepath.Join(home, "records"), func(p string, d os.DirEntry, err error) error {
		if err == nil && d.IsDir() && d.Name() == ses {
			found = p
		}
		return nil
	})
	b, err := os.ReadFile(filepath.Join(found, "trace.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	first, _, _ := bytes.Cut(b, []byte("\n"))
	var r startRec
	if err := json.Unmarshal(first, &r); err != nil {
		t.Fatal(err)
	}
	return r
}

// E-RUN-015…018: each refusal is murmur's text, exit 1, and leaves no
// session of the refused launch.
func TestResumeRefusals(t *testing.T) {
	e := helloEnv(t)
	if _, stderr, code := e.run(t, "--task", "hi"); code != 0 {
		t.Fatalf("first run: %d %q", code, stderr)
	}
	sessions := func() int {
		n := 0
		_ = filepath.WalkDir(filepath.Join(e.home, "records"), func(p string, d os.DirEntry, err error) error {
			if err == nil && d.Name() == "trace.jsonl" {
				n++
			}
			return nil
		})
		return n
	}
	noTask := filepath.Join(t.TempDir(), "ses_0193f2aa0000000000000000000000aa", "trace.jsonl")
	if err := os.MkdirAll(filepath.Dir(noTask), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(noTask, []byte(`{"event_type":"session_start","event_id":"evt_1","parent_id":null,"session_id":"ses_0193f2aa0000000000000000000000aa","timestamp":1}`+"\n"+`{"event_type":"task_st`), 0o600); err != nil {
		t.Fatal(err)
	}
	off := newRunEnv(t, map[string]string{"murmur.yaml": strings.Replace(readExample(t, "murmur.yaml"), "inference:", "context: {record: off}\ninference:", 1),
		"script.yaml": readExample(t, "script.yaml")})
	off.home = e.home
	cases := []struct {
		name string
		env  *runEnv
		args []string
		want string
	}{
		{"E-RUN-015", e, []string{"--resume", "@1", "--context", "ctx_x", "--task", "x"},
			"error[E-RUN-015]: --resume and --context name the same thing two ways\n  hint: --resume <session> resolves that session's context id for you; --context <id> names one directly. Pass whichever you have, not both\n"},
		{"E-RUN-016", e, []string{"--resume", noTask, "--task", "x"},
			"error[E-RUN-016]: cannot resume session ses_0193f2aa0000000000000000000000aa: its trace.jsonl records no task_start carrying a context id\n  hint: only a session that actually ran a task has a conversation to continue. Run `mur trace show <session>` to see what it did, and resume one that reached a task\n"},
		{"E-RUN-018", e, []string{"--resume", "--resume-mode", "compact", "--task", "x"},
			"error[E-RUN-018]: --resume-mode compact needs a hook bound to on-compaction; this capsule declares none\n  hint: declare a hook artifact whose binding is on-compaction (or all) with commit_policy: replace-context, or use --resume-mode full, which loads the record verbatim and needs no hook\n"},
	}
	for _, c := range cases {
		n := sessions()
		_, stderr, code := c.env.run(t, c.args...)
		if code != 1 || stderr != c.want {
			t.Errorf("%s: exit %d, stderr %q\nwant 1, %q", c.name, code, stderr, c.want)
		}
		if sessions() != n {
			t.Errorf("%s: the refused launch made a session", c.name)
		}
	}
	// E-RUN-017: a capsule under context.record: off, resuming a session of
	// its own; and one whose record file is gone.
	if _, stderr, code := off.run(t, "--task", "hi"); code != 0 {
		t.Fatalf("record-off run: %d %q", code, stderr)
	}
	_, stderr, code := off.run(t, "--resume", "--task", "x")
	if code != 1 || !strings.HasPrefix(stderr, "error[E-RUN-017]: cannot resume session ses_") ||
		!strings.Contains(stderr, "has no conversation record (the capsule declares context.record: off)\n  hint: a session is resumable only if its capsule kept a conversation record") {
		t.Errorf("E-RUN-017 (off): exit %d, stderr %q", code, stderr)
	}
	if err := os.RemoveAll(filepath.Join(e.home, "conversations")); err != nil {
		t.Fatal(err)
	}
	_, stderr, code = e.run(t, "--resume", "--task", "x")
	if code != 1 || !strings.HasPrefix(stderr, "error[E-RUN-017]: cannot resume session ses_") || !strings.Contains(stderr, "has no conversation record (no file at "+e.home+"/conversations/") {
		t.Errorf("E-RUN-017 (no file): exit %d, stderr %q", code, stderr)
	}
}

func readExample(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "examples", "hello", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// mur conversation ls, show and rm over the records a run keeps.
func TestConversationCLI(t *testing.T) {
	e := helloEnv(t)
	if _, stderr, code := e.run(t, "--task", "hi"); code != 0 {
		t.Fatalf("run: %d %q", code, stderr)
	}
	conv := func(args ...string) (string, string, int) {
		cmd := e.command()
		cmd.Args = append([]string{murBin, "conversation"}, args...)
		return testmur.Exec(t, cmd)
	}
	out, stderr, code := conv("ls", "--json")
	var ls conversationLsJSON
	if code != 0 || json.Unmarshal([]byte(out), &ls) != nil || len(ls.Records) != 1 || ls.Records[0].Store != "hello-shell" || ls.Records[0].Messages != 3 {
		t.Fatalf("ls --json = %d %q %q", code, out, stderr)
	}
	name := ls.Records[0].Store + "/" + ls.Records[0].Context
	out, _, code = conv("ls")
	if code != 0 || !strings.HasPrefix(out, "RECORD") || !strings.Contains(out, name+"  ") {
		t.Errorf("ls = %d %q", code, out)
	}
	out, _, code = conv("show", name, "--json")
	var show conversationShowJSON
	if code != 0 || json.Unmarshal([]byte(out), &show) != nil || len(show.Messages) != 3 || show.Messages[0].Blocks[0].Text != "hi" {
		t.Errorf("show --json = %d %q", code, out)
	}
	out, _, code = conv("show", name)
	if code != 0 || strings.Count(out, "\n") != 3 || !strings.Contains(out, "  user       msg_") {
		t.Errorf("show = %d %q", code, out)
	}
	if out, _, code = conv("rm", name); code != 0 || out != "removed "+name+"\n" {
		t.Errorf("rm = %d %q", code, out)
	}
	if _, stderr, code = conv("show", name); code == 0 || !strings.Contains(stderr, "no conversation record "+name) {
		t.Errorf("show after rm = %d %q", code, stderr)
	}
}

// The scripted driver plays a resumed task's script from its first turn:
// the turns of the conversation it continues are not the task's turns, and
// the task text it matches is the new task's.
func TestResumeScripted(t *testing.T) {
	e := helloEnv(t)
	if stdout, stderr, code := e.run(t, "--task", "list the files"); code != 0 || !strings.Contains(stdout, "Files:\n") {
		t.Fatalf("first run: %d %q %q", code, stdout, stderr)
	}
	stdout, stderr, code := e.run(t, "--resume", "--task", "list them again")
	if code != 0 || !strings.Contains(stdout, "Files:\n") || !strings.HasSuffix(stdout, "status:  ok\n") {
		t.Fatalf("resume: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	stdout, stderr, code = e.run(t, "--resume", "--task", "hello")
	if code != 0 || !strings.Contains(stdout, "I can only list files.\n") {
		t.Fatalf("second resume (fallback): exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}

// Every task of a context is recorded: two door tasks sent in one contextId
// both go to its record, which survives a kill -9 of the session; a later
// `mur run --context <id>` continues it — its first request is the first
// task's request, its answer, the second task's messages and answer, then
// the new task (the system message once, at the front).
func TestContextRecordsEveryTask(t *testing.T) {
	srv := fake.New(fake.Config{APIKey: "sk-test", Model: "gpt-test"})
	defer srv.Close()
	srv.Enqueue(fake.Text("first answer"), fake.Text("second answer"))
	e := newRunEnv(t, map[string]string{
		"murmur.yaml": "name: threads\nversion: \"1.0.0\"\ninference:\n  driver:\n    kind: openai\n    model: gpt-test\n    endpoint: " + srv.URL +
			"\n    api_key: ${TEST_OPENAI_KEY}\nlifecycle: {task_acceptance: queue, after_task: sleep}\n",
		".env": "TEST_OPENAI_KEY=sk-test\n",
	})
	p, url, _ := startAskDoor(t, e)
	for i, text := range []string{"one", "two"} {
		task := sendTask(t, rpcCall(t, url, `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m`+text+
			`","contextId":"ctx_shared","role":"ROLE_USER","parts":[{"text":"`+text+`"}]}}}`))
		if task.Status.State != "TASK_STATE_COMPLETED" || task.ContextID != "ctx_shared" {
			t.Fatalf("task %d = %+v", i, task)
		}
	}
	if err := p.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	p.wait()
	before := srv.Requests()
	if len(before) != 2 {
		t.Fatalf("requests before the kill = %d, want 2", len(before))
	}
	srv.Enqueue(fake.Text("third answer"))
	stdout, stderr, code := e.run(t, "--capsule", ".", "--lifecycle-after-task", "exit", "--context", "ctx_shared", "--task", "three")
	if code != 0 || !strings.HasSuffix(stdout, "third answer\nstatus:  ok\n") {
		t.Fatalf("--context run: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	reqs := srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("requests = %d, want 3", len(reqs))
	}
	r1, r2 := rawMessages(t, reqs[0].Body), rawMessages(t, reqs[1].Body)
	var want []string
	for _, m := range r1 {
		want = append(want, string(m))
	}
	want = append(want, `{"role":"assistant","content":"first answer"}`)
	for _, m := range r2[1:] { // the second task's request less its system message
		want = append(want, string(m))
	}
	want = append(want, `{"role":"assistant","content":"second answer"}`, `{"role":"user","content":"three"}`)
	got := rawMessages(t, reqs[2].Body)
	var gotS []string
	for _, m := range got {
		gotS = append(gotS, string(m))
	}
	if strings.Join(gotS, "\n") != strings.Join(want, "\n") {
		t.Errorf("the --context request's messages:\n%s\nwant\n%s", strings.Join(gotS, "\n"), strings.Join(want, "\n"))
	}
	ids := sesRe.FindAllString(stdout, -1)
	if rec := readSessionStart(t, e.home, ids[0]); rec.ResumedFrom != nil || rec.ContextID == nil || *rec.ContextID != "ctx_shared" {
		t.Errorf("session_start resumed_from %v, context_id %v; want none and ctx_shared", rec.ResumedFrom, rec.ContextID)
	}
}

// getTask is GetTask's task, with its status message's text.
func getTask(t *testing.T, url, id string) (wireTask, string) {
	t.Helper()
	r := rpcCall(t, url, `{"jsonrpc":"2.0","id":9,"method":"GetTask","params":{"id":"`+id+`"}}`)
	if r.Error != nil {
		return wireTask{}, ""
	}
	var task wireTask
	var st struct {
		Status struct {
			Message struct {
				Parts []struct {
					Text string `json:"text"`
				} `json:"parts"`
			} `json:"message"`
		} `json:"status"`
	}
	if json.Unmarshal(r.Result, &task) != nil || json.Unmarshal(r.Result, &st) != nil {
		t.Fatalf("GetTask = %s", r.Result)
	}
	text := ""
	for _, p := range st.Status.Message.Parts {
		text += p.Text
	}
	return task, text
}

// killWaiting starts examples/ask's door, parks a task on its question and
// kills the session with SIGKILL, then resumes it in door mode; it returns
// the resumed door's URL and the parked task's id.
func killWaiting(t *testing.T) (e *runEnv, p *runProc, url, id string) {
	t.Helper()
	e = askEnv(t)
	first, url, _ := startAskDoor(t, e)
	parked := sendTask(t, rpcCall(t, url, `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m1","role":"ROLE_USER","parts":[{"text":"ship 1.2?"}]}}}`))
	if parked.Status.State != "TASK_STATE_INPUT_REQUIRED" {
		t.Fatalf("SendMessage = %+v, want INPUT_REQUIRED", parked)
	}
	if err := first.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	first.wait()
	p, url, _ = startAskDoor(t, e, "--resume")
	return e, p, url, parked.ID
}

// waitInput polls GetTask, with a bound, until the task is INPUT_REQUIRED
// again, and returns its status message's text.
func waitInput(t *testing.T, p *runProc, url, id string) string {
	t.Helper()
	var last wireTask
	for range 600 {
		select {
		case <-p.done:
			t.Fatalf("the resumed session ended: %s", p.stderr.String())
		default:
		}
		task, text := getTask(t, url, id)
		if task.Status.State == "TASK_STATE_INPUT_REQUIRED" {
			return text
		}
		last = task
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("task %s never INPUT_REQUIRED again; last %+v", id, last)
	return ""
}

// A task waiting for input survives a kill -9 of its session (input.md):
// the resumed door serves it under the same task id in INPUT_REQUIRED, its
// status message the question, and a reply naming it completes it with the
// reply in the answer.
func TestResumeWaitingTask(t *testing.T) {
	_, p, url, id := killWaiting(t)
	if text := waitInput(t, p, url, id); text != "You asked me: ship 1.2?\nWhat should I answer?" {
		t.Errorf("status message = %q, want the question", text)
	}
	done := sendTask(t, rpcCall(t, url, `{"jsonrpc":"2.0","id":2,"method":"SendMessage","params":{"message":{"messageId":"m2","role":"ROLE_USER","taskId":"`+id+`","parts":[{"text":"yes, after the restart"}]}}}`))
	if done.ID != id || done.Status.State != "TASK_STATE_COMPLETED" || done.artifact("response") != "The operator says: yes, after the restart" {
		t.Errorf("reply = %+v, want %s COMPLETED with the reply", done, id)
	}
	if code := p.wait(); code != 0 {
		t.Errorf("resumed mur run exited %d; stderr:\n%s", code, p.stderr.String())
	}
}

// The same through the official JavaScript SDK's client (@a2a-js/sdk): once
// the resumed door serves the task again, the SDK's getTask reads it
// INPUT_REQUIRED with its question and its sendMessage reply completes it.
func TestResumeWaitingTaskJS(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "jsresume", "resume.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	dir := testmur.JSClient(t, map[string][]byte{"resume.mjs": b})
	_, p, url, id := killWaiting(t)
	waitInput(t, p, url, id)
	cmd := exec.Command("node", "resume.mjs", url, id, "yes, from the JS SDK")
	cmd.Dir = dir
	stdout, stderr, code := testmur.Exec(t, cmd)
	want := "waiting TASK_STATE_INPUT_REQUIRED: You asked me: ship 1.2?\nWhat should I answer?\nreplied TASK_STATE_COMPLETED: The operator says: yes, from the JS SDK\n"
	if code != 0 || stdout != want {
		t.Errorf("resume.mjs: exit %d, stdout %q, stderr %q\nwant %q", code, stdout, stderr, want)
	}
	if code := p.wait(); code != 0 {
		t.Errorf("resumed mur run exited %d; stderr:\n%s", code, p.stderr.String())
	}
}

// A background command the killed session left with no outcome is reported
// once to the resumed session — one completion task, source detached_lost,
// lane bg, naming it — and marked with shell_lost in the old session's
// trace, so resuming the same session again reports nothing.
func TestResumeDetachedLost(t *testing.T) {
	e := newRunEnv(t, map[string]string{
		"murmur.yaml": "name: lost\nversion: 1.0.0\ninference: {driver: {kind: scripted, script: script.yaml}}\n" +
			"capabilities: {shell: {allow: [bash]}}\nlifecycle: {task_acceptance: queue, after_task: sleep, shell_grace_secs: 1}\n",
		"script.yaml": "script_version: 1\nrules:\n  - match: {contains: start}\n    turns:\n" +
			"      - tool_calls: [{name: bash, input: {command: \"echo $$ > pid; exec sleep 60\"}}]\n      - text: started\n" +
			"fallback:\n  turns: [{text: \"noted\"}]\n",
	})
	first, url, oldRecords := startAskDoor(t, e)
	if task := sendTask(t, rpcCall(t, url, `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m1","role":"ROLE_USER","parts":[{"text":"start it"}]}}}`)); task.Status.State != "TASK_STATE_COMPLETED" {
		t.Fatalf("SendMessage = %+v", task)
	}
	if err := first.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	first.wait()
	if b, err := os.ReadFile(filepath.Join(e.dir, "pid")); err == nil {
		if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
			_ = syscall.Kill(pid, syscall.SIGKILL) // the command the kill orphaned
		}
	}
	detached := tracetest.OfType[trace.ShellDetached](t, tracetest.Records(t, oldRecords))
	if len(detached) != 1 {
		t.Fatalf("shell_detached = %+v, want 1", detached)
	}
	oldSes := filepath.Base(oldRecords)

	p, _, records := startAskDoor(t, e, "--resume", oldSes)
	var report trace.TaskStart
	testmur.Eventually(t, 2*time.Minute, func() bool {
		recs := tracetest.Records(t, records)
		for _, s := range tracetest.OfType[trace.TaskStart](t, recs) {
			if s.Source == "detached_lost" {
				report = s
			}
		}
		return report.TaskID != "" && slices.ContainsFunc(tracetest.OfType[trace.TaskEnd](t, recs), func(e trace.TaskEnd) bool { return e.TaskID == report.TaskID })
	}, "no detached_lost task ended in %s", records)
	if report.Origin != "completion" || report.Lane != "bg" || report.Trust != "trusted" {
		t.Errorf("the report's task_start = %+v", report)
	}
	lost := tracetest.OfType[trace.ShellLost](t, tracetest.Records(t, oldRecords))
	newSes := filepath.Base(records)
	if len(lost) != 1 || lost[0].WorkID != detached[0].WorkID || lost[0].Command != detached[0].Command || lost[0].Binary != "bash" ||
		lost[0].ReconciledBySession != newSes || lost[0].ReconciledTaskID != report.TaskID || lost[0].DetachedAtMS <= 0 {
		t.Errorf("shell_lost = %+v, want one for %s reconciled by %s / %s", lost, detached[0].WorkID, newSes, report.TaskID)
	}
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	p.wait()

	// Resuming the same session again: nothing is reported twice.
	again, _, againRecords := startAskDoor(t, e, "--resume", oldSes)
	if err := again.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	again.wait()
	for _, s := range tracetest.OfType[trace.TaskStart](t, tracetest.Records(t, againRecords)) {
		if s.Source == "detached_lost" {
			t.Errorf("a second resume reported again: %+v", s)
		}
	}
	if n := len(tracetest.OfType[trace.ShellLost](t, tracetest.Records(t, oldRecords))); n != 1 {
		t.Errorf("shell_lost lines = %d after the second resume, want 1", n)
	}
}

// A compaction is in the record: a resume after a task that compacted
// starts from the compacted conversation — its first request is the last
// request before it (as the model saw it after each compaction), the
// answer, then the new task — not from the whole history, which would not
// fit the window.
func TestResumeAfterCompaction(t *testing.T) {
	const turns, window = 12, 16000
	srv := fake.New(fake.Config{APIKey: "sk-test", Model: "gpt-test", ContextWindow: window})
	defer srv.Close()
	var mu sync.Mutex
	agent := 0
	srv.SetHandler(func(r fake.Request) fake.Reply {
		mu.Lock()
		defer mu.Unlock()
		if len(r.Decoded.Tools) == 0 {
			return fake.Text("the agent has listed numbers; keep going")
		}
		agent++
		if agent > turns {
			return fake.Text("counted to the end")
		}
		return fake.Calls(fake.ToolCall{Name: "bash", Arguments: fmt.Sprintf(`{"command":"seq %d %d"}`, agent, agent+1900)})
	})
	e := newRunEnv(t, map[string]string{
		"murmur.yaml": fmt.Sprintf("name: long\nversion: \"1.0.0\"\ncontext:\n  max_tokens: %d\n", window) + compactArtifact +
			fmt.Sprintf("inference:\n  max_turns: %d\n  max_tokens: 1024\n", turns+10) +
			"  driver:\n    kind: openai\n    model: gpt-test\n    endpoint: " + srv.URL +
			"\n    api_key: ${TEST_OPENAI_KEY}\n  compaction: {threshold: 0.8}\ncapabilities:\n  shell:\n    allow: [bash]\n",
		".env": "TEST_OPENAI_KEY=sk-test\n",
	})
	if stdout, stderr, code := e.run(t, "--capsule", e.dir, "--task", "list numbers"); code != 0 || !strings.Contains(stdout, "counted to the end") {
		t.Fatalf("first run: exit %d, %q %q", code, stdout, stderr)
	}
	if cs := recordsOf(t, sessionRecords(t, e), "compaction"); len(cs) == 0 {
		t.Fatal("the first run did not compact")
	}
	agentRequests := func() []fake.Request {
		var out []fake.Request
		for _, r := range srv.Requests() {
			if len(r.Decoded.Tools) > 0 {
				out = append(out, r)
			}
		}
		return out
	}
	before := agentRequests()
	stdout, stderr, code := e.run(t, "--capsule", e.dir, "--resume", "--task", "carry on")
	if code != 0 || !strings.HasSuffix(stdout, "counted to the end\nstatus:  ok\n") {
		t.Fatalf("resume: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	after := agentRequests()
	if len(after) != len(before)+1 {
		t.Fatalf("agent requests = %d, want %d", len(after), len(before)+1)
	}
	last, got := rawMessages(t, before[len(before)-1].Body), rawMessages(t, after[len(after)-1].Body)
	want := append(append([]json.RawMessage{}, last...), json.RawMessage(`{"role":"assistant","content":"counted to the end"}`), json.RawMessage(`{"role":"user","content":"carry on"}`))
	if len(got) != len(want) {
		t.Fatalf("resumed request has %d messages, want %d (the compacted conversation, the answer, the task)", len(got), len(want))
	}
	for i := range want {
		if !bytes.Equal(got[i], want[i]) {
			t.Errorf("message %d differs:\n got %.200s\nwant %.200s", i, got[i], want[i])
		}
	}
}

// --resume-mode compact compacts the loaded conversation before the resumed
// task's first turn: with murmur-hook-compact declared, the summary call
// comes first, a compaction record (turn 0) is written, the first agent
// request carries the summary instead of the middle turns, and the record
// gets the compaction entry.
func TestResumeModeCompact(t *testing.T) {
	const turns = 6
	srv := fake.New(fake.Config{APIKey: "sk-test", Model: "gpt-test"})
	defer srv.Close()
	var mu sync.Mutex
	agent := 0
	srv.SetHandler(func(r fake.Request) fake.Reply {
		mu.Lock()
		defer mu.Unlock()
		if len(r.Decoded.Tools) == 0 {
			return fake.Text("SUMMARY: counted from 1 to 6")
		}
		agent++
		if agent == turns+1 || agent > turns+1 {
			return fake.Text("done counting")
		}
		return fake.Calls(fake.ToolCall{Name: "bash", Arguments: fmt.Sprintf(`{"command":"echo step %d"}`, agent)})
	})
	e := newRunEnv(t, map[string]string{
		"murmur.yaml": "name: squash\nversion: \"1.0.0\"\n" + compactArtifact + "inference:\n  driver:\n    kind: openai\n    model: gpt-test\n    endpoint: " + srv.URL +
			"\n    api_key: ${TEST_OPENAI_KEY}\ncapabilities:\n  shell:\n    allow: [bash]\n",
		".env": "TEST_OPENAI_KEY=sk-test\n",
	})
	if stdout, stderr, code := e.run(t, "--capsule", e.dir, "--task", "count"); code != 0 || !strings.Contains(stdout, "done counting") {
		t.Fatalf("first run: exit %d, %q %q", code, stdout, stderr)
	}
	full := len(srv.Requests())
	stdout, stderr, code := e.run(t, "--capsule", e.dir, "--resume", "--resume-mode", "compact", "--task", "carry on")
	if code != 0 || !strings.HasSuffix(stdout, "done counting\nstatus:  ok\n") {
		t.Fatalf("resume: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	reqs := srv.Requests()[full:]
	if len(reqs) != 2 || len(reqs[0].Decoded.Tools) != 0 {
		t.Fatalf("resumed requests = %d (first with %d tools), want the summary call then one agent request", len(reqs), len(reqs[0].Decoded.Tools))
	}
	body := string(reqs[1].Body)
	if !strings.Contains(body, "SUMMARY: counted from 1 to 6") || strings.Contains(body, "echo step 2") || !strings.Contains(body, `"content":"carry on"`) {
		t.Errorf("the first agent request does not continue from the summary: %s", body)
	}
	ses := sesRe.FindString(stdout)
	cs := recordsOf(t, filepath.Join(e.home, "records", e.dir, ses), "compaction")
	if len(cs) != 1 || cs[0]["turn"] != float64(0) || cs[0]["hook_name"] != "murmur-hook-compact" {
		t.Errorf("compaction records = %v, want one at turn 0", cs)
	}
}
