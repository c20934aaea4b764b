package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/murmur-go/mur/internal/golden"
	"github.com/murmur-go/mur/runtime/spawn"
	"github.com/murmur-go/mur/runtime/trace"
	"github.com/murmur-go/mur/runtime/trace/tracetest"
)

// lister reports the names in its own process's environment, then the
// MURMUR_SPAWNER it was handed, then its session status.
var lister = capsule{name: "lister", caps: unconfined, script: `script_version: 1
rules:
  - match: {always: true}
    turns:
      - tool_calls: [{name: bash, input: {command: "tr '\\0' '\\n' < /proc/$PPID/environ | sed 's/=.*//' | sort | tr '\\n' ' '"}}]
      - tool_calls: [{name: bash, input: {command: "tr '\\0' '\\n' < /proc/$PPID/environ | sed -n 's/^MURMUR_SPAWNER=//p'"}}]
      - tool_calls: [{name: session-status, input: {}}]
      - text: "LISTER-DONE"
`}

// delegating is a parent that delegates task to capsule@0.1.0, ends its
// turn, and answers once the outcome is in.
func delegating(name, caps, capsule, task string) capsule {
	return capsuleFor(name, caps, `script_version: 1
rules:
  - match: {always: true}
    turns:
      - tool_calls: [{name: delegate-task, input: {capsule: `+capsule+`, version: "0.1.0", task: "`+task+`"}}]
      - text: "waiting for the outcome"
      - text: "PARENT-DONE"
`)
}

func capsuleFor(name, caps, script string) capsule {
	return capsule{name: name, caps: caps, script: script}
}

var childDir = regexp.MustCompile(`^\.murmur/children/lister-[0-9a-f]{16}$`)

// TestStartedAndOK_DLG3_DLG4_DLG7_DLG9: a parent delegates to an installed
// sub-capsule. delegate-task returns started once the child holds its task
// (DLG-4); the child runs in <workdir>/.murmur/children/<capsule>-<16 hex>
// (0700) with exactly DLG-3's environment and the parent's deadline, which
// its session-status names; at its end it writes completion.json and posts
// it, which starts no task at the parent (DLG-7); the outcome reaches the
// parent's next inference in one continuation (DLG-8); the records are
// DLG-9's. No process is left.
func TestStartedAndOK_DLG3_DLG4_DLG7_DLG9(t *testing.T) {
	w := newWorld(t)
	w.install(t, lister)
	dir := w.put(t, delegating("parent", "  shell:\n    allow: [bash]\n  spawn:\n    allow: [local/lister@0.1.0]\n", "lister", "list your environment"))
	r, stderr, code := w.run(t, dir, "go", "--deadline", "10m")
	if code != 0 {
		t.Fatalf("mur run exited %d: %s", code, stderr)
	}
	recs := records(t, r.RecordsDir)
	out := toolOutputs(t, recs, "delegate-task")
	if len(out) != 1 {
		t.Fatalf("delegate-task calls = %q", out)
	}
	starts := of[trace.DelegationStart](t, recs)
	dels := of[trace.Delegation](t, recs)
	conts := of[trace.TaskContinued](t, recs)
	if len(starts) != 1 || len(dels) != 1 || len(conts) != 1 {
		t.Fatalf("delegation_start %v, delegation %v, task_continued %v", starts, dels, conts)
	}
	st, d := starts[0], dels[0]
	if st.Capsule != "lister" || st.Version != "0.1.0" || !childDir.MatchString(st.ChildWorkdir) {
		t.Errorf("delegation_start = %+v", st)
	}
	if d.DelegationID == nil || *d.DelegationID != st.DelegationID || d.ChildSessionID == nil || *d.ChildSessionID != st.ChildSessionID ||
		d.Outcome != "ok" || d.Reason != nil || d.Capsule != "lister" {
		t.Errorf("delegation = %+v", d)
	}
	if c := conts[0]; len(c.Delegations) != 1 || c.Delegations[0] != st.DelegationID || len(c.MemberCalls) != 0 {
		t.Errorf("task_continued = %+v", c)
	}
	if n := len(of[trace.TaskStart](t, recs)); n != 1 || len(of[trace.A2ATaskReceived](t, recs)) != 0 {
		t.Errorf("%d tasks started at the parent, want only the launch task: the completion starts none", n)
	}
	golden.Check(t, "started_result", normalise(out[0]))
	golden.Check(t, "started_continuation", normaliseIn(continuation(t, r.RecordsDir, 1), r.Workdir))

	wd := filepath.Join(r.Workdir, st.ChildWorkdir)
	if fi, err := os.Stat(wd); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("child workdir %s: %v, mode %v, want 0700", wd, err, fi.Mode().Perm())
	}
	crecs := w.childRecords(t, wd, st.ChildSessionID)
	cr := records(t, crecs)
	ss := of[trace.SessionStart](t, cr)[0]
	parentStart := of[trace.SessionStart](t, recs)[0]
	if ss.SpawnedBy != r.SessionID || ss.DelegationID != st.DelegationID || ss.FormationID != "" {
		t.Errorf("child session_start spawned_by %q delegation_id %q formation_id %q", ss.SpawnedBy, ss.DelegationID, ss.FormationID)
	}
	if parentStart.Deadline == nil || ss.Deadline == nil || *ss.Deadline != *parentStart.Deadline {
		t.Errorf("child deadline %v, parent's %v: DLG-3 hands the parent's down", ss.Deadline, parentStart.Deadline)
	}
	bash := toolOutputs(t, cr, "bash")
	if len(bash) != 2 || !strings.Contains(bash[0], "\nHOME MURMUR_HOME MURMUR_SPAWNER MURMUR_SPAWNER_LIFELINE PATH \n") {
		t.Errorf("the child's environment names:\n%s", bash)
	}
	var h spawn.Handle
	handle := bash[1][strings.Index(bash[1], "{"):]
	handle = handle[:strings.Index(handle, "\n")]
	if err := json.Unmarshal([]byte(handle), &h); err != nil || h.SessionID != r.SessionID || h.DelegationID != st.DelegationID ||
		h.URL != r.URL || h.Trust != "trusted" || !strings.HasPrefix(h.ContextID, "ctx_") {
		t.Errorf("MURMUR_SPAWNER = %s (%v)", handle, err)
	}
	if want := `{"session_id":"` + r.SessionID + `","context_id":"` + h.ContextID + `","delegation_id":"` + st.DelegationID + `","url":"` + r.URL + `","trust":"trusted"}`; handle != want {
		t.Errorf("MURMUR_SPAWNER = %s, want compact JSON in DLG-3's order %s", handle, want)
	}
	status := toolOutputs(t, cr, "session-status")
	if len(status) != 1 || !strings.Contains(status[0], `"deadline":{"at":"`+*parentStart.Deadline+`"`) {
		t.Errorf("the child's session-status = %s, want time.deadline.at %s (inherited)", status, *parentStart.Deadline)
	}

	comp, exists, ok := spawn.ReadCompletion(crecs)
	if !exists || !ok {
		t.Fatalf("completion.json: exists %v, ok %v", exists, ok)
	}
	if comp.DelegationID != st.DelegationID || comp.CapsuleName != "lister" || comp.CapsuleVersion != "0.1.0" ||
		comp.SessionID != st.ChildSessionID || comp.Status != "ok" || comp.Workdir != wd || comp.ReportedBy != "child" ||
		!comp.Delivered || comp.DeliveryError != "" || comp.ResultPath != spawn.ResultPath(st.ChildSessionID) {
		t.Errorf("completion.json = %+v", comp)
	}
	if b, err := os.ReadFile(filepath.Join(wd, comp.ResultPath)); err != nil || string(b) != "LISTER-DONE" {
		t.Errorf("result file %s = %q, %v", comp.ResultPath, b, err)
	}
	if ents, _ := os.ReadDir(filepath.Join(w.home, "running")); len(ents) != 0 {
		t.Errorf("running records left: %v", ents)
	}
	if tracetest.Types(cr)[len(cr)-1] != "session_end" {
		t.Errorf("the child's trace does not end in session_end")
	}
}

// TestChildLoadsProjectEnv_SES10: a child loads its project's .env, as its
// parent did, so what the operator keeps there (a driver key, say) reaches
// it; a parent run with --no-env-file hands that on.
func TestChildLoadsProjectEnv_SES10(t *testing.T) {
	w := newWorld(t)
	w.install(t, capsule{name: "echoer", caps: "  shell:\n    allow: [bash]\n", script: `script_version: 1
rules:
  - match: {always: true}
    turns:
      - tool_calls: [{name: bash, input: {command: "echo greeting=$GREETING"}}]
      - text: done
`})
	dir := w.put(t, delegating("parent", "  shell:\n    allow: [bash]\n  spawn:\n    allow: [local/echoer@0.1.0]\n", "echoer", "echo"))
	w.write(t, "parent/.env", "GREETING=from-the-project\n")
	for _, c := range []struct {
		args []string
		want string
	}{{nil, "greeting=from-the-project\n"}, {[]string{"--no-env-file"}, "greeting=\n"}} {
		r, stderr, code := w.run(t, dir, "go", c.args...)
		if code != 0 {
			t.Fatalf("mur run %v exited %d: %s", c.args, code, stderr)
		}
		st := of[trace.DelegationStart](t, records(t, r.RecordsDir))[0]
		out := toolOutputs(t, records(t, w.childRecords(t, filepath.Join(r.Workdir, st.ChildWorkdir), st.ChildSessionID)), "bash")
		if len(out) != 1 || !strings.Contains(out[0], "\nStdout:\n"+c.want) {
			t.Errorf("mur run %v: the child's bash = %q, want %q", c.args, out, c.want)
		}
	}
}
