package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/murmur-go/mur/runtime/trace"
)

const observedManifest = `name: observed
version: "0.1.0"
inference:
  driver:
    kind: scripted
    script: script.yaml
  max_turns: 6
capabilities:
  shell:
    allow: [echo]
trace:
  capture: content
artifacts:
  - name: seeder
    version: "1.0.0"
    runtime: hook
  - name: judge
    version: "1.0.0"
    runtime: hook
  - name: audit
    version: "1.0.0"
    runtime: hook
    on_overflow: block
    capabilities:
      filesystem: {scope: audit}
    config: {level: all}
`

// TestSeedObserveInferAndGrants runs three hooks through the real binary:
//   - an on-task-start seed-context hook whose message heads the task's
//     first messages (context_seed accepted);
//   - a blocking on-shell observer that calls the host's run-inference
//     while it observes: the call is an inference record with origin
//     hook:judge, and one of the task's turns;
//   - an async observer with no binding that appends every event to its
//     own directory (filesystem.scope) and cannot read the workdir outside
//     it (Landlock, under the default scoped containment), drained before
//     session_end.
func TestSeedObserveInferAndGrants(t *testing.T) {
	c := newCapsule(t, observedManifest, `script_version: 1
rules:
  - match: {always: true}
    turns:
      - tool_calls:
          - {name: echo, input: {command: "echo hi"}}
      - text: "the judge's verdict"
      - text: "done"
`)
	c.write(t, "workdir-secret.txt", "secret")
	c.env = []string{"OPENAI_API_KEY=sk-test-not-for-hooks"}
	c.mustInstallHook(t, "seeder", "binding: on-task-start\ncommit_policy: seed-context\n", hookScript(`  case "$line" in
    *'"phase":"decide"'*) reply '"answer":"seed-context","value":["remember: the user likes short answers"]';;
    *) reply '"answer":"none"';;
  esac
`))
	c.mustInstallHook(t, "judge", "binding: on-shell\n", hookScript(`  printf '{"id":"c1","call":"run-inference","params":{"prompt":"judge this call"}}\n'
  IFS= read -r answer
  reply '"answer":"none"'
`))
	c.mustInstallHook(t, "audit", "execution_mode: async\n", hookScript(`  [ -e env.txt ] || env > env.txt
  printf '%s\n' "$line" >> events.jsonl
  if cat ../workdir-secret.txt >/dev/null 2>&1; then echo read >> events.jsonl; fi
  reply '"answer":"none"'
`))
	r, stderr, code := c.run(t, "say hi")
	if code != 0 {
		t.Fatalf("mur run exited %d: %s", code, stderr)
	}
	recs := records(t, r.RecordsDir)
	seeds := of[trace.ContextSeed](t, recs)
	if len(seeds) != 1 || !seeds[0].Accepted || seeds[0].HookName != "seeder" || seeds[0].Messages != 1 || seeds[0].Reason != "" {
		t.Errorf("context_seed = %+v", seeds)
	}
	infs := of[trace.Inference](t, recs)
	if infs[0].Capture == nil || len(infs[0].MessageIDs) != 3 {
		t.Errorf("the first inference was sent %v, want the seed, the task and the session block", infs[0].Capture)
	} else if b, err := os.ReadFile(filepath.Join(r.RecordsDir, "blobs", infs[0].MessageSHAs[0])); err != nil || !strings.Contains(string(b), "remember: the user likes short answers") {
		t.Errorf("the first message sent = %s (%v), want the seed", b, err)
	}
	var origins []string
	for _, in := range infs {
		origins = append(origins, in.Origin)
	}
	if strings.Join(origins, ",") != ",hook:judge," {
		t.Errorf("inference origins = %q, want the agent's, the judge's, the agent's", origins)
	}
	if ends := of[trace.TaskEnd](t, recs); len(ends) != 1 || ends[0].Turns != 3 || ends[0].ExitStatus != "ok" {
		t.Errorf("task_end = %+v, want 3 turns, the hook's call among them", ends)
	}
	if errs := of[trace.HookDispatchError](t, recs); len(errs) != 0 {
		t.Errorf("hook_dispatch_error = %+v", errs)
	}
	if _, err := os.Stat(filepath.Join(r.Workdir, "workdir-secret.txt")); err != nil {
		t.Fatalf("the file the hook must not read is not in the workdir: %v", err)
	}
	events, err := os.ReadFile(filepath.Join(r.Workdir, "audit", "events.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, l := range strings.Split(strings.TrimSpace(string(events)), "\n") {
		if l == "read" {
			t.Errorf("the async hook read a workdir file outside its grant")
			continue
		}
		_, rest, _ := strings.Cut(l, `"event":"`)
		ev, _, _ := strings.Cut(rest, `"`)
		kinds = append(kinds, ev)
	}
	env, err := os.ReadFile(filepath.Join(r.Workdir, "audit", "env.txt"))
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]string{}
	for _, kv := range strings.Split(strings.TrimSpace(string(env)), "\n") {
		k, v, _ := strings.Cut(kv, "=")
		names[k] = v
	}
	for k := range names {
		switch k {
		case "PATH", "LANG", "TZ", "MURMUR_SESSION_ID", "MURMUR_HOOK_NAME", "MURMUR_ARTIFACT_CONFIG", "PWD", "OLDPWD", "SHLVL", "_":
		default:
			t.Errorf("the hook's environment holds %s", k)
		}
	}
	if names["MURMUR_ARTIFACT_CONFIG"] != `{"level":"all"}` || names["MURMUR_HOOK_NAME"] != "audit" || names["MURMUR_SESSION_ID"] != r.SessionID {
		t.Errorf("the hook's environment:\n%s", env)
	}
	want := "on-session-start,on-task-start,on-inference,on-shell,on-inference,on-task-end,on-session-end"
	if strings.Join(kinds, ",") != want {
		t.Errorf("the async hook saw %q, want %q", kinds, want)
	}
}

// TestSeedRejected: seed-context answers that are empty, unreadable or
// over the seed budget are recorded (context_seed, accepted false, with the
// reason) and place nothing; the task runs on.
func TestSeedRejected(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("x", 33<<10)
	for _, c := range []struct{ name, value, reason string }{
		{"empty", `[]`, "empty"},
		{"unreadable", `{"not":"a list"}`, "unreadable"},
		{"over_budget", `["` + big + `"]`, "over_budget"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			cp := newCapsule(t, `name: seeded
version: "0.1.0"
inference:
  driver:
    kind: scripted
    script: script.yaml
trace:
  capture: content
artifacts:
  - {name: seeder, version: "1.0.0", runtime: hook}
`, "script_version: 1\nrules:\n  - match: {always: true}\n    turns:\n      - text: done\n")
			cp.mustInstallHook(t, "seeder", "binding: on-task-start\ncommit_policy: seed-context\n", hookScript(`  reply '"answer":"seed-context","value":`+c.value+`'
`))
			r, stderr, code := cp.run(t, "go")
			if code != 0 {
				t.Fatalf("mur run = %d: %s", code, stderr)
			}
			recs := records(t, r.RecordsDir)
			seeds := of[trace.ContextSeed](t, recs)
			if len(seeds) != 1 || seeds[0].Accepted || seeds[0].Reason != c.reason {
				t.Errorf("context_seed = %+v, want rejected %s", seeds, c.reason)
			}
			infs := of[trace.Inference](t, recs)
			if len(infs) != 1 || infs[0].Capture == nil || len(infs[0].MessageIDs) != 2 {
				t.Errorf("the first inference was sent %+v, want the task and the session block only", infs)
			}
		})
	}
}
