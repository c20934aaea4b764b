package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/murmur-go/mur/runtime/trace"
)

// TestHookInferenceUnderSpendCeiling: a hook's run-inference is admitted
// like an agent turn (LOOP-18): a call that could pass
// inference.max_session_tokens is not sent, the hook reads the ceiling's
// text, spend_ceiling_reached is written, and the refusal latches — the
// agent's next turn is refused too and the task ends spend_ceiling_reached.
func TestHookInferenceUnderSpendCeiling(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("judge this call carefully. ", 200) // ~5,400 bytes: over the ceiling with max_tokens
	c := newCapsule(t, `name: spender
version: "0.1.0"
inference:
  driver:
    kind: scripted
    script: script.yaml
  max_turns: 6
  max_tokens: 1000
  max_session_tokens: 1800
capabilities:
  shell:
    allow: [echo]
artifacts:
  - name: judge
    version: "1.0.0"
    runtime: hook
    capabilities:
      filesystem: {scope: judge}
`, `script_version: 1
rules:
  - match: {always: true}
    turns:
      - tool_calls:
          - {name: echo, input: {command: "echo hi"}}
      - text: "verdict"
      - text: "done"
`)
	c.mustInstallHook(t, "judge", "binding: on-shell\n", hookScript(`  printf '{"id":"c1","call":"run-inference","params":{"prompt":"`+big+`"}}\n'
  IFS= read -r answer
  printf '%s\n' "$answer" >> answers.jsonl
  reply '"answer":"none"'
`))
	r, _, _ := c.run(t, "say hi")
	recs := records(t, r.RecordsDir)
	ceil := of[trace.SpendCeilingReached](t, recs)
	if len(ceil) < 1 || ceil[0].Ceiling != 1800 || ceil[0].Requested < 1000 {
		t.Fatalf("spend_ceiling_reached = %+v", ceil)
	}
	for _, in := range of[trace.Inference](t, recs) {
		if in.Origin != "" {
			t.Errorf("the hook's call was sent: %+v", in)
		}
	}
	answers, err := os.ReadFile(filepath.Join(r.Workdir, "judge", "answers.jsonl"))
	if err != nil || !strings.Contains(string(answers), `"error":"stopped: spend ceiling reached: session ceiling 1800`) {
		t.Errorf("the hook read %s (%v)", answers, err)
	}
	if ends := of[trace.TaskEnd](t, recs); len(ends) != 1 || ends[0].ExitStatus != "spend_ceiling_reached" {
		t.Errorf("task_end = %+v", ends)
	}
}
