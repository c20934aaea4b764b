package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/murmur-go/mur/conformance"
	"github.com/murmur-go/mur/internal/testmur"
)

// conformingCapsule is a scripted capsule whose door serves many tasks: a
// task saying "hold" runs a command that waits until the task is canceled
// (the suite's slow task); any other is answered at once.
const conformingManifest = `name: conformer
version: "0.1.0"
inference:
  driver: {kind: scripted, script: script.yaml}
  max_turns: 4
capabilities:
  shell:
    allow: [sleep]
lifecycle:
  task_acceptance: queue
  queue_depth: 16
  after_task: sleep
`

const conformingScript = `script_version: 1
rules:
  - match: {contains: "hold"}
    turns:
      - tool_calls: [{name: sleep, input: {command: "600"}}]
      - text: "held"
fallback:
  turns: [{text: "done: {{task}}"}]
`

// startConformer starts `mur run` on the conforming capsule and returns its
// door's URL and session id; authenticated adds network.authentication.
func startConformer(t *testing.T, authenticated bool) (e *runEnv, p *runProc, url, session string) {
	t.Helper()
	manifest := conformingManifest
	if authenticated {
		manifest = memberManifest // a bearer door with credential reader
	}
	e = newRunEnv(t, map[string]string{"murmur.yaml": manifest, "script.yaml": conformingScript})
	p = e.start(t, "--capsule", ".", "--json")
	var ready struct {
		SessionID string `json:"session_id"`
		URL       string `json:"url"`
	}
	if err := json.Unmarshal([]byte(p.line(t)), &ready); err != nil || ready.URL == "" {
		t.Fatalf("readiness line: %v (stderr %q)", err, p.stderr.String())
	}
	return e, p, ready.URL, ready.SessionID
}

// stopConformer sends SIGTERM and expects the idle session to end 0.
func stopConformer(t *testing.T, p *runProc) {
	t.Helper()
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if code := p.wait(); code != 0 {
		t.Errorf("mur run exited %d after SIGTERM while idle, want 0; stderr:\n%s", code, p.stderr.String())
	}
}

// A door served by `mur run` passes the whole conformance suite, auth checks
// (a scoped credential's too) and slow-task checks included ("passes mur conformance with
// 0 failed"; door.md GO-7).
func TestMurRunDoorPassesConformance(t *testing.T) {
	t.Parallel()
	e, p, url, session := startConformer(t, true)
	toks := doorTokens(t, e, session)
	if toks["operator"] == "" || toks["reader"] == "" {
		t.Fatalf("mur token printed %v, want operator and reader", toks)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	results := conformance.Run(ctx, conformance.Config{URL: url, Token: toks["operator"], ScopedToken: toks["reader"], SlowTaskText: "hold on"})
	skips := map[string]bool{"auth.public": true, "stream.unsupported": true, // a bearer door that streams
		"formation.scope": true, "formation.forged": true, "formation.own-tasks": true, // in no formation
		"send.continue": true} // its tasks never ask (TestMurConformanceAskingDoor_INP14 runs it)
	for _, r := range results {
		if r.Status != conformance.Pass && (r.Status != conformance.Skip || !skips[r.ID]) {
			t.Errorf("%s", r)
		}
	}
	stopConformer(t, p)
	noProcessIn(t, e.dir) // the canceled "hold" commands went with their tasks
}

// `mur conformance <url>` against a public `mur run` door prints
// "N passed, 0 failed" and exits 0.
func TestMurConformanceCommandAgainstMurRun(t *testing.T) {
	t.Parallel()
	e, p, url, _ := startConformer(t, false)
	out, errOut, code := runMur(t, e, "conformance", url)
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	last := lines[len(lines)-1]
	if code != 0 || errOut != "" || !strings.HasSuffix(last, " passed, 0 failed") {
		t.Errorf("mur conformance exited %d, stderr %q, last line %q\n%s", code, errOut, last, out)
	}
	stopConformer(t, p)
	noProcessIn(t, e.dir)
}

// `mur conformance` against a door of examples/ask, whose every task asks
// its operator (input.md): 0 failed, and the checks of interrupted tasks run
// on it — a blocking send stops at INPUT_REQUIRED, a reply continues the
// task, a waiting task is canceled and subscribed to (INP-14).
func TestMurConformanceAskingDoor_INP14(t *testing.T) {
	t.Parallel()
	e := askEnv(t)
	p, url, _ := startAskDoor(t, e, "--lifecycle-task-acceptance", "queue", "--lifecycle-after-task", "sleep")
	out, errOut, code := runMur(t, e, "conformance", url)
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if code != 0 || errOut != "" || !strings.HasSuffix(lines[len(lines)-1], " passed, 0 failed") {
		t.Errorf("mur conformance exited %d, stderr %q:\n%s", code, errOut, out)
	}
	for _, id := range []string{"send.blocking", "send.continue", "get.history", "cancel.live", "stream.send", "subscribe.live", "murmur.session-stop"} {
		if !containsLine(lines, "PASS "+id+"  ") {
			t.Errorf("%s did not pass:\n%s", id, out)
		}
	}
	stopConformer(t, p)
}

// promptedScript answers only the texts `mur conformance` is told to send:
// --task-text's at once, --slow-task-text's never until canceled. Any other
// task (the suite's default text) never ends either, so a blocking
// SendMessage of it would time the check out.
const promptedScript = `script_version: 1
rules:
  - match: {contains: "lingering chore"}
    turns:
      - tool_calls: [{name: sleep, input: {command: "600"}}]
      - text: "held"
  - match: {contains: "quick chore"}
    turns: [{text: "done"}]
fallback:
  turns:
    - tool_calls: [{name: sleep, input: {command: "600"}}]
    - text: "late"
`

// --task-text and --slow-task-text are the texts the suite sends: with them a
// door whose agent answers only those passes, its live-task checks included.
func TestMurConformanceTaskTexts_GO7(t *testing.T) {
	t.Parallel()
	e := newRunEnv(t, map[string]string{"murmur.yaml": conformingManifest, "script.yaml": promptedScript})
	p := e.start(t, "--capsule", ".", "--json")
	var ready struct {
		URL string `json:"url"`
	}
	if err := json.Unmarshal([]byte(p.line(t)), &ready); err != nil || ready.URL == "" {
		t.Fatalf("readiness line: %v (stderr %q)", err, p.stderr.String())
	}
	out, errOut, code := runMur(t, e, "conformance", ready.URL, "--task-text", "a quick chore", "--slow-task-text", "a lingering chore",
		"--check-timeout", "2m")
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if code != 0 || errOut != "" || !strings.HasSuffix(lines[len(lines)-1], " passed, 0 failed") {
		t.Errorf("mur conformance exited %d, stderr %q:\n%s", code, errOut, out)
	}
	for _, id := range []string{"send.blocking", "get.history", "cancel.live", "subscribe.live", "murmur.session-stop"} {
		if !containsLine(lines, "PASS "+id+"  ") {
			t.Errorf("%s did not pass:\n%s", id, out)
		}
	}
	stopConformer(t, p)
	noProcessIn(t, e.dir)
}

// noProcessIn fails if a process still has dir as its working directory: the
// session's shell commands run there, so none may outlive it. A killed
// process may take a moment to leave /proc, so it looks for up to 10 s.
func noProcessIn(t *testing.T, dir string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		var left []string
		ents, _ := os.ReadDir("/proc")
		for _, ent := range ents {
			if cwd, err := os.Readlink(filepath.Join("/proc", ent.Name(), "cwd")); err == nil && cwd == dir {
				left = append(left, ent.Name())
			}
		}
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("processes %v still run in %s", left, dir)
		}
		<-tick.C
	}
}

// runMur runs another mur command against the same MURMUR_HOME.
func runMur(t *testing.T, e *runEnv, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := e.command()
	cmd.Args = append([]string{murBin}, args...)
	return testmur.Exec(t, cmd)
}
