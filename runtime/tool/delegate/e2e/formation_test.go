package e2e

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/murmur-go/mur/internal/golden"
	"github.com/murmur-go/mur/internal/testmur"
	"github.com/murmur-go/mur/runtime/trace"
)

// member is a roster member's capsule; auth adds network.authentication
// (every member of a roster with an edge declares it, ROS-6).
type member struct {
	capsule
	auth bool
}

// formation writes each member under <dir>/<name>/, installs it into the
// project store (mur install), writes roster.yaml (the first member is the
// entry; edges "from:to") and launches it with --json --task task.
func (w *world) formation(t *testing.T, task string, members []member, edges ...string) *launch {
	t.Helper()
	var roster strings.Builder
	roster.WriteString("roster_version: 1\nmembers:\n")
	for i, m := range members {
		c := m.capsule
		if m.auth {
			c.extra += "network:\n  authentication:\n    scheme: bearer\n"
		}
		w.put(t, c)
		cmd := exec.Command(mur, "install", c.name)
		cmd.Dir, cmd.Env = w.dir, w.environ()
		if out, err := testmur.Combined(cmd); err != nil {
			t.Fatalf("mur install %s: %v\n%s", c.name, err, out)
		}
		fmt.Fprintf(&roster, "  - name: %s\n    capsule: %s\n    version: \"0.1.0\"\n", c.name, c.name)
		if i == 0 {
			roster.WriteString("    entry: true\n")
		}
	}
	if len(edges) > 0 {
		roster.WriteString("reachability:\n")
		for _, e := range edges {
			from, to, _ := strings.Cut(e, ":")
			fmt.Fprintf(&roster, "  - from: %s\n    to: [%s]\n", from, to)
		}
	}
	w.write(t, "roster.yaml", roster.String())
	cmd := exec.Command(mur, "run", "--roster", ".", "--json", "--task", task)
	cmd.Dir, cmd.Env = w.dir, w.environ()
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	l := &launch{cmd: cmd}
	cmd.Stderr = &l.stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := testmur.Start(cmd); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); _ = cmd.Wait() })
	br := bufio.NewReader(out)
	for _, v := range []any{&l.form, &l.entry} {
		line, err := br.ReadString('\n')
		if err != nil || json.Unmarshal([]byte(line), v) != nil {
			t.Fatalf("launcher line %q (%v); stderr:\n%s", line, err, l.stderr.String())
		}
	}
	go func() { _, _ = br.WriteTo(discardWriter{}) }()
	return l
}

type discardWriter struct{}

func (discardWriter) Write(p []byte) (int, error) { return len(p), nil }

// launch is a running `mur run --roster`.
type launch struct {
	cmd    *exec.Cmd
	stderr testmur.Buffer
	form   struct {
		FormationID string `json:"formation_id"`
	}
	entry readiness
}

// TestFormationMemberDelegates_DLG6: a formation member delegates; the child
// shares the formation's id and nothing else (no W-RUN-007, no member). The
// launcher is SIGKILLed: the member's lifeline closes, it winds down, and
// its child ends with it — no process is left.
func TestFormationMemberDelegates_DLG6(t *testing.T) {
	w := newWorld(t)
	up := filepath.Join(w.dir, "up")
	testmur.FIFO(t, up)
	w.install(t, capsule{name: "worker", caps: unconfined, script: `script_version: 1
rules:
  - match: {always: true}
    turns:
      - tool_calls: [{name: bash, input: {command: "echo up > ` + up + `; sleep 60"}}]
      - text: never
`})
	l := w.formation(t, "go", []member{{capsule: delegating("lead", "  shell:\n    allow: [bash]\n  spawn:\n    allow: [local/worker@0.1.0]\n", "worker", "work")}})
	readLine(t, up, l.cmd.Process)               // the child is at work
	if err := l.cmd.Process.Kill(); err != nil { // the formation killed
		t.Fatal(err)
	}
	_ = l.cmd.Wait()
	goneWithin(t, l.cmd.Process.Pid, 30*time.Second) // LIFE-5's bound for members; the child goes with its member
	recs := records(t, l.entry.RecordsDir)
	if n := len(of[trace.FormationEnded](t, recs)); n != 1 {
		t.Errorf("the member wrote %d formation_ended", n)
	}
	st := of[trace.DelegationStart](t, recs)
	d := of[trace.Delegation](t, recs)
	if len(st) != 1 || len(d) != 1 || d[0].Outcome != "terminated" || d[0].Reason == nil || *d[0].Reason != "the delegating task was cancelled" {
		t.Fatalf("delegation_start %+v, delegation %+v", st, d)
	}
	cr := records(t, w.childRecords(t, filepath.Join(w.dir, st[0].ChildWorkdir), st[0].ChildSessionID))
	ss := of[trace.SessionStart](t, cr)[0]
	if ss.FormationID != l.form.FormationID || ss.FormationMember != "" || ss.SpawnedBy != l.entry.SessionID {
		t.Errorf("child session_start formation_id %q member %q spawned_by %q", ss.FormationID, ss.FormationMember, ss.SpawnedBy)
	}
	if end := of[trace.SessionEnd](t, cr); len(end) != 1 {
		t.Errorf("the child did not end its session in order: %+v", end)
	}
	log, _ := os.ReadFile(filepath.Join(l.entry.RecordsDir, "logs", st[0].DelegationID+".log"))
	if strings.Contains(string(log), "W-RUN-007") {
		t.Errorf("the child warned W-RUN-007:\n%s", log)
	}
}

// TestAnswersThenOutcomes_RND2_DLG8: a member that calls another member and
// delegates to a sub-capsule in one turn waits for both and continues once,
// every member answer first, then every delegation outcome, then the
// runtime's lines — compared byte for byte (ids and paths normalised) with
// what its next inference saw. Its door is authenticated, so the child's
// completion reaches it with the completion token.
func TestAnswersThenOutcomes_RND2_DLG8(t *testing.T) {
	w := newWorld(t)
	w.install(t, quick("helper", ""))
	lead := capsule{name: "lead", caps: "  network:\n    allow: [localhost]\n  spawn:\n    allow: [local/helper@0.1.0]\n", script: `script_version: 1
rules:
  - match: {always: true}
    turns:
      - tool_calls:
          - {name: delegate-task, input: {capsule: helper, version: "0.1.0", task: "help"}}
          - {name: call-member, input: {member: worker, task: "work"}}
      - text: "waiting for both"
      - text: "{{member_answer}}"
`}
	worker := capsule{name: "worker", extra: "lifecycle:\n  task_acceptance: queue\n  after_task: sleep\nexports:\n  peer_tasks:\n    accept: true\n",
		script: "script_version: 1\nrules:\n  - match: {always: true}\n    turns:\n      - text: WORKER-ANSWER\n"}
	l := w.formation(t, "go", []member{{capsule: lead, auth: true}, {capsule: worker, auth: true}}, "lead:worker")
	if err := l.cmd.Wait(); err != nil {
		t.Fatalf("mur run --roster: %v\n%s", err, l.stderr.String())
	}
	noneLeft(t, l.cmd.Process.Pid)
	recs := records(t, l.entry.RecordsDir)
	c := of[trace.TaskContinued](t, recs)
	if len(c) != 1 || len(c[0].MemberCalls) != 1 || len(c[0].Delegations) != 1 {
		t.Fatalf("task_continued = %+v, want one round with both", c)
	}
	if d := of[trace.Delegation](t, recs); len(d) != 1 || d[0].Outcome != "ok" {
		t.Errorf("delegation = %+v", d)
	}
	golden.Check(t, "answers_then_outcomes", normaliseIn(continuation(t, l.entry.RecordsDir, 1), w.dir))
}
