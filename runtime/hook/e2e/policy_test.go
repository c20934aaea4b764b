package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/murmur-go/mur/runtime/trace"
)

// policyManifest is a capsule with two shell binaries and the hooks its
// test installs (artifacts appended).
const policyManifest = `name: guarded
version: "0.1.0"
inference:
  driver:
    kind: scripted
    script: script.yaml
  max_turns: 8
capabilities:
  shell:
    allow: [sh, echo]
trace:
  capture: content
artifacts:
`

// denyShell denies a decided command whose line holds "rm -rf", allows
// every other one, and appends every line it reads to the log named by
// MURMUR_ARTIFACT_CONFIG's absence (its own directory: audit.jsonl).
var denyShell = hookScript(`  printf '%s\n' "$line" >> audit.jsonl
  case "$line" in
    *'"phase":"decide"'*'rm -rf'*) reply '"answer":"deny","reason":"destructive command"';;
    *) reply '"answer":"none"';;
  esac
`)

// denyTool denies session-status at the on-tool-call decision point.
var denyTool = hookScript(`  case "$line" in
    *'"phase":"decide"'*'"tool_name":"session-status"'*) reply '"answer":"deny","reason":"no status calls here"';;
    *) reply '"answer":"none"';;
  esac
`)

const refusalTail = "\n\nThis call did not run. Retrying it unchanged will be refused again."

// TestPolicyAllowDeny_ShellAndTool proves both decision points through the
// real binary: an on-shell hook denies `sh -c 'rm -rf …'` (call_denied with
// the resolved executable, no tool_call, no shell record, murmur's refusal
// text to the model) and lets `echo hi` run; an on-tool-call hook denies
// session-status and lets a shell call through; the hook's own grant
// (filesystem.scope) is where its audit file is written, and it sees the
// decide request then the observation of the call that ran.
func TestPolicyAllowDeny_ShellAndTool(t *testing.T) {
	c := newCapsule(t, policyManifest+`  - name: shell-guard
    version: "1.0.0"
    runtime: hook
    capabilities:
      filesystem: {scope: audit}
  - name: tool-guard
    version: "1.0.0"
    runtime: hook
  - name: audit
    version: "1.0.0"
    runtime: hook
    capabilities:
      filesystem: {scope: every-call}
`, `script_version: 1
rules:
  - match: {always: true}
    turns:
      - tool_calls:
          - {name: sh, input: {command: "rm -rf data"}}
          - {name: echo, input: {command: "echo hi"}}
          - {name: session-status, input: {}}
          - {name: rm, input: {command: "rm -rf data"}}
      - text: "done"
`)
	c.mustInstallHook(t, "shell-guard", "binding: on-shell\ncommit_policy: deny\n", denyShell)
	c.mustInstallHook(t, "tool-guard", "binding: on-tool-call\ncommit_policy: deny\n", denyTool)
	c.mustInstallHook(t, "audit", "", hookScript(`  printf '%s\n' "$line" >> calls.jsonl
  reply '"answer":"none"'
`))
	r, stderr, code := c.run(t, "clean up")
	if code != 0 {
		t.Fatalf("mur run exited %d: %s", code, stderr)
	}
	recs := records(t, r.RecordsDir)
	denied := of[trace.CallDenied](t, recs)
	sh := lookPath(t, "sh")
	want := []trace.CallDenied{
		{Turn: 0, TaskID: denied[0].TaskID, Event: "on-shell", HookName: "shell-guard", Target: sh, Reason: "destructive command"},
		{Turn: 0, TaskID: denied[0].TaskID, Event: "on-tool-call", HookName: "tool-guard", Target: "session-status", Reason: "no status calls here"},
	}
	if !slices.Equal(denied, want) {
		t.Errorf("call_denied = %+v\nwant %+v", denied, want)
	}
	calls := of[trace.ToolCall](t, recs)
	if len(calls) != 2 || calls[0].ToolName != "echo" || calls[0].Status != "ok" || calls[1].ToolName != "rm" || calls[1].Summary != "rm: refused" {
		t.Errorf("tool_call records = %+v, want echo's and the manifest's refusal of rm", calls)
	}
	if shells := of[trace.Shell](t, recs); len(shells) != 1 || shells[0].Binary != "echo" {
		t.Errorf("shell records = %+v, want only echo's", shells)
	}
	// What the model read: the next inference's tool message.
	msgs := modelToolResults(t, r)
	wantMsgs := []string{
		"Refused by policy hook 'shell-guard': destructive command" + refusalTail,
		"", // echo's fenced output, checked below
		"Refused by policy hook 'tool-guard': no status calls here" + refusalTail,
	}
	if len(msgs) != 4 || msgs[0] != wantMsgs[0] || msgs[2] != wantMsgs[2] || !strings.Contains(msgs[1], "hi") {
		t.Errorf("tool results the model read = %q", msgs)
	}
	audit, err := os.ReadFile(filepath.Join(r.Workdir, "audit", "audit.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(audit)), "\n")
	if len(lines) != 4 || !strings.Contains(lines[0], `"event":"on-shell","phase":"decide"`) || !strings.Contains(lines[0], `"script":"rm -rf data"`) ||
		!strings.Contains(lines[1], `"phase":"observe"`) || !strings.Contains(lines[1], `"script":"rm -rf data"`) ||
		!strings.Contains(lines[2], `"phase":"decide"`) || !strings.Contains(lines[2], `"argv":["echo","hi"]`) ||
		!strings.Contains(lines[3], `"phase":"observe"`) || !strings.Contains(lines[3], `"outcome":{"exit_code":0`) {
		t.Errorf("the hook read:\n%s", audit)
	}
	// The observer with no binding is handed every attempt, the refused
	// ones with their outcome refused and who refused them.
	every, err := os.ReadFile(filepath.Join(r.Workdir, "every-call", "calls.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var observed []string
	for _, l := range strings.Split(strings.TrimSpace(string(every)), "\n") {
		var req struct {
			Event, Phase string
			Payload      struct {
				ToolName string          `json:"tool_name"`
				Argv     []string        `json:"argv"`
				Outcome  json.RawMessage `json:"outcome"`
			}
		}
		if err := json.Unmarshal([]byte(l), &req); err != nil {
			t.Fatalf("the observer read %q: %v", l, err)
		}
		if req.Event == "on-shell" || req.Event == "on-tool-call" {
			observed = append(observed, fmt.Sprintf("%s %s%v %s", req.Event, req.Payload.ToolName, req.Payload.Argv, req.Payload.Outcome))
		}
	}
	refusedRM := `{"status":"refused","output_bytes":` + fmt.Sprint(len(msgs[3])) + `,"duration_ms":`
	wantObserved := []string{
		`on-shell [sh -c rm -rf data] {"exit_code":null,"output_bytes":` + fmt.Sprint(len(msgs[0])) + `,"duration_ms":`,
		`on-shell [echo hi] {"exit_code":0,"output_bytes":`,
		`on-tool-call session-status[] {"status":"refused","output_bytes":` + fmt.Sprint(len(msgs[2])) + `,"duration_ms":`,
		`on-tool-call rm[] ` + refusedRM,
	}
	wantTails := []string{
		`,"status":"refused","hook_name":"shell-guard","reason":"destructive command"}`,
		`}`,
		`,"summary":"session-status: refused","hook_name":"tool-guard","reason":"no status calls here"}`,
		`,"summary":"rm: refused","reason":` + jsonString(t, msgs[3]) + `}`,
	}
	if len(observed) != len(wantObserved) {
		t.Fatalf("the observer was handed %d calls, want %d:\n%s", len(observed), len(wantObserved), strings.Join(observed, "\n"))
	}
	for i, o := range observed {
		if !strings.HasPrefix(o, wantObserved[i]) || !strings.HasSuffix(o, wantTails[i]) {
			t.Errorf("observed call %d = %s\nwant %s…%s", i, o, wantObserved[i], wantTails[i])
		}
	}
	if errs := of[trace.HookDispatchError](t, recs); len(errs) != 0 {
		t.Errorf("hook_dispatch_error = %+v, want none", errs)
	}
}

// jsonString is s as a JSON string.
func jsonString(t *testing.T, s string) string {
	t.Helper()
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// lookPath is where mur resolves a shell binary.
func lookPath(t *testing.T, bin string) string {
	t.Helper()
	for _, dir := range filepath.SplitList(os.Getenv("PATH")) {
		p := filepath.Join(dir, bin)
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
			return p
		}
	}
	t.Fatalf("%s is not on PATH", bin)
	return ""
}

// TestInstallRefusesContract byte-compares murmur's staging refusal of a
// binding the commit_policy does not fit, through mur install.
func TestInstallRefusesContract(t *testing.T) {
	t.Parallel()
	c := newCapsule(t, policyManifest, "script_version: 1\nrules: []\n")
	code, errOut := c.installHook(t, "my-hook", "binding: on-task-end\ncommit_policy: replace-context\n", hookScript(""))
	want := "error[E-MAN-003]: hook my-hook@1.0.0 invalid config: commit_policy 'replace-context' is not valid for binding 'on-task-end'; binding 'on-task-end' honors commit_policy 'reopen-task'\n  hint: correct commit_policy\n"
	if code == 0 || errOut != want {
		t.Errorf("mur install = %d\n%q\nwant\n%q", code, errOut, want)
	}
}

// TestPolicyGatesPlanSteps: a plan's steps pass the same decision points
// as the loop's calls — a shell step meets on-shell, a tool step
// on-tool-call — and a denied step fails with murmur's refusal text.
func TestPolicyGatesPlanSteps(t *testing.T) {
	t.Parallel()
	c := newCapsule(t, strings.Replace(policyManifest, "capabilities:\n", "capabilities:\n  plan: {submit: true}\n", 1)+`  - {name: shell-guard, version: "1.0.0", runtime: hook}
  - {name: tool-guard, version: "1.0.0", runtime: hook}
`, `script_version: 1
rules:
  - match: {always: true}
    turns:
      - tool_calls:
          - {name: submit-plan, input: {id: p1, steps: [{id: wipe, shell: "echo rm -rf data"}]}}
          - {name: submit-plan, input: {id: p2, steps: [{id: status, tool: session-status, input: {}}]}}
      - text: "done"
`)
	c.mustInstallHook(t, "shell-guard", "binding: on-shell\ncommit_policy: deny\n", denyShell)
	c.mustInstallHook(t, "tool-guard", "binding: on-tool-call\ncommit_policy: deny\n", denyTool)
	r, stderr, code := c.run(t, "plan it")
	if code != 0 {
		t.Fatalf("mur run exited %d: %s", code, stderr)
	}
	recs := records(t, r.RecordsDir)
	var events []string
	for _, d := range of[trace.CallDenied](t, recs) {
		events = append(events, d.Event+" "+d.HookName+" "+d.Reason)
	}
	if strings.Join(events, "; ") != "on-shell shell-guard destructive command; on-tool-call tool-guard no status calls here" {
		t.Errorf("call_denied = %q", events)
	}
	steps := of[trace.PlanStep](t, recs)
	if len(steps) != 2 || steps[0].Error == nil || *steps[0].Error != "Refused by policy hook 'shell-guard': destructive command"+refusalTail ||
		steps[1].Error == nil || *steps[1].Error != "Refused by policy hook 'tool-guard': no status calls here"+refusalTail {
		t.Errorf("plan_step = %+v", steps)
	}
	if shells := of[trace.Shell](t, recs); len(shells) != 0 {
		t.Errorf("shell = %+v, want none: nothing ran", shells)
	}
}

// TestPolicyDecidesOnRecipe: `make clean` is decided on the body the
// workdir's Makefile gives clean (the shell event's recipe), so a policy
// refusing `rm -rf` refuses it though its argv names only the target.
func TestPolicyDecidesOnRecipe(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("make is not installed")
	}
	c := newCapsule(t, strings.Replace(policyManifest, "allow: [sh, echo]", "allow: [make]", 1)+
		"  - {name: shell-guard, version: \"1.0.0\", runtime: hook}\n", `script_version: 1
rules:
  - match: {always: true}
    turns:
      - tool_calls:
          - {name: make, input: {command: "make clean"}}
          - {name: make, input: {command: "make hello"}}
      - text: "done"
`)
	c.write(t, "Makefile", "clean:\n\trm -rf build\n\nhello:\n\t@echo hello\n")
	c.mustInstallHook(t, "shell-guard", "binding: on-shell\ncommit_policy: deny\n", denyShell)
	r, stderr, code := c.run(t, "clean")
	if code != 0 {
		t.Fatalf("mur run exited %d: %s", code, stderr)
	}
	recs := records(t, r.RecordsDir)
	if d := of[trace.CallDenied](t, recs); len(d) != 1 || d[0].Reason != "destructive command" {
		t.Errorf("call_denied = %+v, want make clean's", d)
	}
	if shells := of[trace.Shell](t, recs); len(shells) != 1 || shells[0].Command != "make hello" {
		t.Errorf("shell = %+v, want make hello only", shells)
	}
}
