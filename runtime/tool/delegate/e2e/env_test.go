package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/murmur-go/mur/runtime/trace"
)

// TestChildEnvAllow_DLG2_DLG3: capabilities.env.allow under http acts for
// delegated children alone (process.md PROC-3). A child is handed the names
// both capsules list that its parent's environment holds, and no other; a
// child listing a name its parent does not is refused on the env axis with
// DLG-2's sentence, before anything starts.
func TestChildEnvAllow_DLG2_DLG3(t *testing.T) {
	w := newWorld(t)
	w.env = []string{"GREETING=hello", "PARENT_ONLY=p", "EXTRA_NAME=x", "UNLISTED=u"}
	w.install(t,
		capsule{name: "envchild", caps: "  shell:\n    allow: [bash]\n  env:\n    allow: [GREETING]\n", script: `script_version: 1
rules:
  - match: {always: true}
    turns:
      - tool_calls: [{name: bash, input: {command: "echo \"g=$GREETING p=$PARENT_ONLY e=$EXTRA_NAME u=$UNLISTED\""}}]
      - text: done
`},
		quick("greedy", "  env:\n    allow: [GREETING, EXTRA_NAME]\n"),
	)
	dir := w.put(t, capsule{name: "parent",
		caps:   "  shell:\n    allow: [bash]\n  env:\n    allow: [GREETING, PARENT_ONLY]\n  spawn:\n    allow: [local/envchild@0.1.0, local/greedy@0.1.0]\n",
		script: calls("envchild@0.1.0", "greedy@0.1.0")})
	r, stderr, code := w.run(t, dir, "go")
	if code != 0 {
		t.Fatalf("mur run exited %d: %s", code, stderr)
	}
	recs := records(t, r.RecordsDir)
	out := toolOutputs(t, recs, "delegate-task")
	refusal := "<untrusted-content source=tool:delegate-task>\ncapabilities.env.allow: the child declares 'EXTRA_NAME'" + envelopeTail + "\n</untrusted-content>"
	if len(out) != 2 || !strings.Contains(out[0], `"status":"started"`) || out[1] != refusal {
		t.Fatalf("delegate-task results:\n%s\nwant started, then\n%s", strings.Join(out, "\n"), refusal)
	}
	st := of[trace.DelegationStart](t, recs)
	if len(st) != 1 || st[0].Capsule != "envchild" {
		t.Fatalf("delegation_start = %+v", st)
	}
	bash := toolOutputs(t, records(t, w.childRecords(t, filepath.Join(r.Workdir, st[0].ChildWorkdir), st[0].ChildSessionID)), "bash")
	if len(bash) != 1 || !strings.Contains(bash[0], "\nStdout:\ng=hello p= e= u=\n") {
		t.Errorf("the child's environment: %q, want GREETING alone of the four", bash)
	}
	// In a delegated child the key did act: no W-SEC-019 says it was ignored.
	if log, err := os.ReadFile(filepath.Join(r.RecordsDir, "logs", st[0].DelegationID+".log")); err != nil || strings.Contains(string(log), "W-SEC-019") {
		t.Errorf("the child's stderr (%v):\n%s", err, log)
	}
	var outcomes []string
	for _, d := range of[trace.Delegation](t, recs) {
		outcomes = append(outcomes, d.Outcome)
	}
	if got := strings.Join(outcomes, ","); got != "refused,ok" {
		t.Errorf("delegation outcomes = %s", got)
	}
}
