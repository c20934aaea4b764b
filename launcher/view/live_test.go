package view

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/murmur-go/mur/internal/testmur"
	"github.com/murmur-go/mur/runtime/murhome"
)

const (
	liveSes  = "ses_01a2400000007000800000000000000a"
	liveTask = "tsk_01a2400000007000800000000000000c"
)

// line is one trace line of session liveSes.
func line(typ string, ts int64, fields string) string {
	if fields != "" {
		fields = "," + fields
	}
	return fmt.Sprintf(`{"event_type":%q,"event_id":"evt_x","parent_id":null,"session_id":%q,"timestamp":%d%s}`+"\n", typ, liveSes, ts, fields)
}

// liveSession makes a running session of this test process: its records
// directory and a running record naming this pid (so it counts as alive)
// and url. It returns $MURMUR_HOME and the trace path.
func liveSession(t *testing.T, url string) (home, trace string) {
	t.Helper()
	root := testmur.TempDir(t)
	home = filepath.Join(root, "home")
	dir := filepath.Join(home, "records", strings.TrimPrefix(root, "/"), "work", liveSes)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	start, err := murhome.StartTime(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	rec := &murhome.Running{SessionID: liveSes, URL: url, PID: os.Getpid(), ProcessStart: start, Name: "solo", Version: "1.0.0",
		Workdir: filepath.Join(root, "work"), RecordsDir: dir, StartedAt: time.Now(), Tokens: murhome.Tokens{{Name: "operator", Value: "mdt_operator"}}}
	if err := murhome.WriteRunning(home, rec); err != nil {
		t.Fatal(err)
	}
	return home, filepath.Join(dir, "trace.jsonl")
}

func appendTo(t *testing.T, path, text string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(text); err != nil {
		t.Fatal(err)
	}
}

func memberOf(t *testing.T, v *View, name string) Member {
	t.Helper()
	v.m.mu.Lock()
	defer v.m.mu.Unlock()
	ms, ok := v.m.members[name]
	if !ok {
		t.Fatalf("no member %s", name)
	}
	return cloneMember(ms.Member)
}

// TestSessionFollowsTraceAndRecord: a single session's member goes
// starting → ready (its running record) → working (task_start) → idle
// (task_end) as its trace grows, a half-written line waits for its newline,
// and when its running record goes without a session_end it is ended.
func TestSessionFollowsTraceAndRecord(t *testing.T) {
	t.Parallel()
	home, trace := liveSession(t, "http://127.0.0.1:1")
	appendTo(t, trace, line("session_start", 1000, `"capsule_name":"solo","capsule_version":"1.0.0"`))
	v, err := New(Config{Home: home, Target: Target{KindSession, liveSes}, Token: "tok"})
	if err != nil {
		t.Fatal(err)
	}
	if m := memberOf(t, v, "solo"); m.State != MemberReady || m.SessionID != liveSes {
		t.Errorf("after session_start and its running record: %+v, want ready", m)
	}
	start := line("task_start", 1100, `"task_id":"`+liveTask+`","source":"a2a","origin":"event"`)
	appendTo(t, trace, start[:40]) // the writer is mid-line
	v.readTraces()
	if m := memberOf(t, v, "solo"); m.State != MemberReady {
		t.Errorf("after half a task_start: %s, want ready", m.State)
	}
	appendTo(t, trace, start[40:])
	v.readTraces()
	if m := memberOf(t, v, "solo"); m.State != MemberWorking || m.LiveTasks != 1 {
		t.Errorf("after task_start: %+v, want working", m)
	}
	appendTo(t, trace, line("task_end", 1300, `"task_id":"`+liveTask+`","exit_status":"ok","duration_ms":200,"turns":1,"input_tokens":5,"output_tokens":7`))
	v.readTraces()
	if m := memberOf(t, v, "solo"); m.State != MemberIdle {
		t.Errorf("after task_end: %s, want idle", m.State)
	}
	if err := murhome.RemoveRunning(home, liveSes); err != nil {
		t.Fatal(err)
	}
	if err := v.discover(nil); err != nil {
		t.Fatal(err)
	}
	if m := memberOf(t, v, "solo"); m.State != MemberEnded || m.Exit != "no session_end" {
		t.Errorf("after its running record went: %+v, want ended, no session_end", m)
	}
	v.m.mu.Lock()
	live := v.m.live
	v.m.mu.Unlock()
	if live {
		t.Error("the view still says live")
	}
}

// TestFollowWatch: the watcher reads stream/watch with the operator token,
// moves the task by its status frames and shows the working status message,
// and returns at capsule-closed (door.md SSE-6..8).
func TestFollowWatch(t *testing.T) {
	t.Parallel()
	gotAuth := make(chan string, 1) // the one watch request's header
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case gotAuth <- r.Header.Get("Authorization"):
		default:
		}
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, "event: connection-ack\ndata: {\"role\":\"observer\",\"conversation_mode\":\"stateless\"}\n\n")
		fmt.Fprintf(w, "id: 1\nevent: status\ndata: {\"id\":%q,\"context_id\":\"ctx_x\",\"status\":{\"state\":\"working\",\"message\":\"waiting on call-member: 1 call(s) outstanding\"},\"final\":false}\n\n", liveTask)
		fmt.Fprint(w, "event: capsule-closed\ndata: {}\n\n")
	}))
	defer srv.Close()
	home, trace := liveSession(t, srv.URL)
	appendTo(t, trace, line("session_start", 1000, `"capsule_name":"solo","capsule_version":"1.0.0"`))
	v, err := New(Config{Home: home, Target: Target{KindSession, liveSes}, Token: "tok"})
	if err != nil {
		t.Fatal(err)
	}
	s := v.sessions[liveSes]
	done := make(chan struct{})
	go func() { v.m.follow(context.Background(), s, srv.URL, "mdt_operator"); close(done) }()
	<-done // capsule-closed ends it
	if a := <-gotAuth; a != "Bearer mdt_operator" {
		t.Errorf("watch Authorization = %q, want the operator token", a)
	}
	m := memberOf(t, v, "solo")
	if m.State != MemberWorking || m.Status != "waiting on call-member: 1 call(s) outstanding" {
		t.Errorf("member after a working frame: %+v", m)
	}
	v.m.mu.Lock()
	tk := cloneTask(v.m.tasks[taskKey("solo", liveTask)].Task)
	v.m.mu.Unlock()
	if tk.State != "working" || tk.Status != m.Status {
		t.Errorf("task after a working frame: %+v", tk)
	}
}

// TestTaskStatesOnlyMoveOn: a terminal state is final, a task never goes
// back to submitted, and a repeated state adds no step.
func TestTaskStatesOnlyMoveOn(t *testing.T) {
	t.Parallel()
	m := newModel(KindSession, liveSes)
	m.mu.Lock()
	defer m.mu.Unlock()
	tk := m.task("solo", liveTask, "", 1)
	for i, st := range []string{"working", "submitted", "working", "input-required", "working", "completed", "working", "failed"} {
		m.setTaskState(tk, st, int64(i), "")
	}
	var got []string
	for _, s := range tk.History {
		got = append(got, s.State)
	}
	if strings.Join(got, " ") != "working input-required working completed" {
		t.Errorf("history = %q", got)
	}
	if ms := m.members["solo"]; ms.LiveTasks != 0 || ms.Tasks != 1 {
		t.Errorf("member counts: %d live of %d", ms.LiveTasks, ms.Tasks)
	}
}

// TestCallLifecycle: a call offered while its member is busy shows busy with
// its re-offer count, then started once held, then its ending; an ended
// call takes no later state; the member's task links back to the call.
func TestCallLifecycle(t *testing.T) {
	t.Parallel()
	home, trace := liveSession(t, "http://127.0.0.1:1")
	const call, theirs = "mcl_01a2400000007000800000000000000e", "tsk_01a2400000007000800000000000000f"
	appendTo(t, trace, line("session_start", 1000, `"capsule_name":"solo","capsule_version":"1.0.0","formation_id":"frm_01a24000000070008000000000000001","formation_member":"lead","formation_callees":["worker"]`)+
		line("task_start", 1001, `"task_id":"`+liveTask+`","source":"a2a","origin":"event"`)+
		line("member_call_busy", 1010, `"task_id":"`+liveTask+`","call_id":"`+call+`","member":"worker","offer":1,"waited_ms":0,"message":"task rejected: capsule is busy"`)+
		line("member_call_busy", 2010, `"task_id":"`+liveTask+`","call_id":"`+call+`","member":"worker","offer":2,"waited_ms":1000,"message":"task rejected: capsule is busy"`)+
		line("member_call_start", 4010, `"task_id":"`+liveTask+`","call_id":"`+call+`","member":"worker","member_task_id":"`+theirs+`"`)+
		line("member_call", 9010, `"task_id":"`+liveTask+`","call_id":"`+call+`","member":"worker","member_task_id":"`+theirs+`","status":"no_answer","duration_ms":9000,"output":"","truncated":false,"delivered":true`)+
		line("member_call_start", 9011, `"task_id":"`+liveTask+`","call_id":"`+call+`","member":"worker","member_task_id":"`+theirs+`"`))
	v, err := New(Config{Home: home, Target: Target{KindSession, liveSes}, Token: "tok"})
	if err != nil {
		t.Fatal(err)
	}
	v.m.mu.Lock()
	c := cloneCall(*v.m.calls[call])
	v.m.mu.Unlock()
	var steps []string
	for _, s := range c.History {
		steps = append(steps, fmt.Sprintf("%s@%d", s.State, s.At))
	}
	if c.From != "lead" || c.To != "worker" || c.State != "no_answer" || c.Offers != 2 || c.MemberTaskID != theirs || c.DurationMS == nil || *c.DurationMS != 9000 ||
		strings.Join(steps, " ") != "busy@1010 busy@2010 started@4010 no_answer@9010" {
		t.Errorf("call = %+v, steps %q", c, steps)
	}
	if m := memberOf(t, v, "worker"); m.State != MemberStarting {
		t.Errorf("a callee with no session yet = %+v, want starting", m)
	}
}
