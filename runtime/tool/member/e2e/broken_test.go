package e2e

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/murmur-go/mur/internal/testmur"
)

// installRaw writes <name>/murmur.yaml and script.yaml as given and installs
// the capsule, for manifests install's template cannot express.
func (p *project) installRaw(t *testing.T, name, manifest, script string) {
	t.Helper()
	p.write(t, name+"/murmur.yaml", manifest)
	p.write(t, name+"/script.yaml", script)
	cmd := exec.Command(mur, "install", name)
	cmd.Dir, cmd.Env = p.dir, p.environ()
	if out, err := testmur.Combined(cmd); err != nil {
		t.Fatalf("mur install %s: %v\n%s", name, err, out)
	}
}

// doctor runs mur doctor in the project (a formation directory).
func (p *project) doctor(t *testing.T) (stdout string, code int) {
	t.Helper()
	cmd := exec.Command(mur, "doctor")
	cmd.Dir, cmd.Env = p.dir, p.environ()
	out, _, code := testmur.Exec(t, cmd)
	return out, code
}

// traceShow runs mur trace show on a records directory.
func traceShow(t *testing.T, p *project, dir string) string {
	t.Helper()
	cmd := exec.Command(mur, "trace", "show", dir)
	cmd.Dir, cmd.Env = p.dir, p.environ()
	out, errb, code := testmur.Exec(t, cmd)
	if code != 0 {
		t.Fatalf("mur trace show %s = %d: %s", dir, code, errb)
	}
	return out
}

// leadCallsTwice calls worker, waits, calls it again, then answers.
var leadCallsTwice = capsule{name: "lead", script: `script_version: 1
rules:
  - match: {always: true}
    turns:
      - tool_calls: [{name: call-member, input: {member: worker, task: "first"}}]
      - text: "waiting for worker"
      - tool_calls: [{name: call-member, input: {member: worker, task: "second"}}]
      - text: "waiting for worker again"
      - text: "lead: done"
`}

// TestBrokenRosterLifecycle is a roster mistake that otherwise ends quietly: worker's lifecycle
// key is misspelt, so it keeps after_task: exit and ends after its first
// task. mur doctor warns about both (W-SEC-019 naming the member, W-ROS-002);
// the launch prints them before it starts, and its last stderr lines name
// each call that could not complete, with its reason.
func TestBrokenRosterLifecycle(t *testing.T) {
	t.Parallel()
	p := newProject(t)
	worker := capsule{name: "worker", script: "script_version: 1\nrules:\n  - match: {always: true}\n    turns:\n      - text: \"worker did {{task}}\"\n",
		extra: "lifecycle:\n  task_acceptance: queue\n  after_tsk: sleep\nexports:\n  peer_tasks:\n    accept: true\n"}
	p.install(t, leadCallsTwice, worker)
	p.roster(t, []string{"lead", "worker"}, "lead:worker")

	// The position is in the member's installed murmur.yaml, the file mur read.
	w019 := "warning[W-SEC-019]: member 'worker': " + filepath.Join(p.home, "artifacts", "e2e-worker", "0.1.0", "tree", "murmur.yaml") +
		":18:3: unrecognized key 'after_tsk' in lifecycle — did you mean 'after_task'?; it was parsed and ignored"
	const w002 = "warning[W-ROS-002]: roster.yaml lets 'lead' call 'worker', but its lifecycle.after_task is exit, so it ends after its first task and every later call to it fails unreachable"
	out, code := p.doctor(t)
	if code != 0 || !strings.Contains(out, "  "+w019+"\n  "+w002+"\n") ||
		!strings.Contains(out, "The roster has no errors and 2 warnings.") ||
		!strings.Contains(out, "Fix: set lifecycle.after_task: sleep in the murmur.yaml of member 'worker'") {
		t.Errorf("mur doctor = %d:\n%s", code, out)
	}

	l := p.start(t, "two calls")
	code = l.wait(t)
	stderr := l.stderr.String()
	lines := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n")
	if code != 0 || len(lines) < 4 || lines[0] != "[mur run] "+w019 || lines[1] != "[mur run] "+w002 {
		t.Fatalf("exit %d; stderr:\n%s", code, stderr)
	}
	lines = despite(t, lines, "W-SEC-019, W-ROS-002")
	last := lines[len(lines)-1]
	if !strings.HasPrefix(last, "warning[W-RUN-009]: the task's call mcl_") ||
		!strings.Contains(last, " to member 'worker' ended ") || !strings.Contains(last, "worker's door") {
		t.Errorf("the launch's last stderr line = %q, want W-RUN-009 naming the call to worker and why", last)
	}
	// worker ends as its first task does, before the lead's poll reads the
	// answer: neither call completes, and both are named with their reason.
	if n := strings.Count(stderr, "warning[W-RUN-009]: "); n != 2 || !strings.HasPrefix(lines[len(lines)-2], "warning[W-RUN-009]: ") {
		t.Errorf("W-RUN-009 lines = %d, want the last two; stderr:\n%s", n, stderr)
	}
	show := traceShow(t, p, l.entry.RecordsDir)
	if n := len(regexp.MustCompile(`(?m)^  mcl_\S+  worker  (unreachable|failed)  \S+  — worker's door `).FindAllString(show, -1)); n != 2 {
		t.Errorf("mur trace show names %d failed calls with their reason, want 2:\n%s", n, show)
	}
}

// TestBrokenRosterEgress is a second such mistake: the lead's
// capabilities.network.allow lacks localhost, so every call is refused.
// mur doctor warns (W-RUN-008); the launch prints it before starting and
// ends naming the refused call.
func TestBrokenRosterEgress(t *testing.T) {
	t.Parallel()
	p := newProject(t)
	p.installRaw(t, "lead", `name: e2e-lead
version: "0.1.0"
inference:
  driver:
    kind: scripted
    script: script.yaml
capabilities:
  network:
    allow: [api.example.com]
network:
  authentication:
    scheme: bearer
`, leadCalls("worker").script)
	p.install(t, worker(`text: "worker did: {{task}}"`))
	p.roster(t, []string{"lead", "worker"}, "lead:worker")

	const w008 = `warning[W-RUN-008]: roster.yaml lets 'lead' call 'worker', but its capabilities.network.allow reaches no loopback http door at an unpinned port, so every call-member call will be refused; declare "localhost"`
	out, code := p.doctor(t)
	if code != 0 || !strings.Contains(out, "  "+w008+"\n") || !strings.Contains(out, "The roster has no errors and 1 warning.") ||
		!strings.Contains(out, `Fix: add "localhost" to capabilities.network.allow`) {
		t.Errorf("mur doctor = %d:\n%s", code, out)
	}

	l := p.start(t, "call worker")
	code = l.wait(t)
	stderr := l.stderr.String()
	lines := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n")
	if code != 0 || len(lines) < 2 || lines[0] != "[mur run] "+w008 {
		t.Fatalf("exit %d; stderr:\n%s", code, stderr)
	}
	lines = despite(t, lines, "W-RUN-008")
	want := "warning[W-RUN-009]: the task's call %s to member 'worker' ended failed: 'worker' could not be called: this capsule's capabilities.network.allow does not reach its door."
	last := lines[len(lines)-1]
	var call string
	if _, err := fmt.Sscanf(last, "warning[W-RUN-009]: the task's call %s to", &call); err != nil || !strings.HasPrefix(last, fmt.Sprintf(want, call)) {
		t.Errorf("the launch's last stderr line = %q, want W-RUN-009 for the refused call", last)
	}
	if show := traceShow(t, p, l.entry.RecordsDir); !strings.Contains(show, "  "+call+"  worker  failed  ") ||
		!strings.Contains(show, "— 'worker' could not be called: this capsule's capabilities.network.allow does not reach its door.") {
		t.Errorf("mur trace show lacks the refused call's reason:\n%s", show)
	}
}

// despite checks that the launch's last stderr line says the answer came
// despite the launch's warnings (codes, as the line lists them) and returns
// the lines before it.
func despite(t *testing.T, lines []string, codes string) []string {
	t.Helper()
	n := strings.Count(codes, ",") + 1
	noun := "warnings"
	if n == 1 {
		noun = "warning"
	}
	want := fmt.Sprintf("[mur run] warning[W-RUN-010]: the formation's answer came despite %d %s printed at launch (%s); mur doctor explains each, and --strict refuses such a run", n, noun, codes)
	if last := lines[len(lines)-1]; last != want {
		t.Errorf("the launch's last stderr line = %q, want %q", last, want)
	}
	return lines[:len(lines)-1]
}
